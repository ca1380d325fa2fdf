import type { Database } from '../../database'
import { apiKeyProblem, type ProjectKeys } from '../gateway'
import { json, matchRoute, readJsonObject, type Route, route } from '../http'
import { renderStorageError, StorageError, storageErrors } from './errors'
import { asCaller, callerOf, findBucket, putObject, readObject } from './objects'

function objectName(raw: string) {
  const name = raw.replace(/^\/+|\/+$/g, '')
  if (!name || name.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw storageErrors.invalidKey(raw)
  }
  return name
}

/** POST /object/{bucket}/{name}: raw bytes, replacing only with `x-upsert: true`. */
async function upload(db: Database, request: Request, params: Record<string, string>) {
  const contentType = request.headers.get('content-type') ?? ''
  if (contentType.startsWith('multipart/form-data'))
    throw new StorageError(400, 'InvalidRequest', 'Error', 'Not supported by the local stand-in')
  const result = await putObject(db, await callerOf(request), {
    bucket: params.bucket,
    name: objectName(params.rest),
    bytes: Buffer.from(await request.arrayBuffer()),
    mimetype: contentType || 'application/octet-stream',
    cacheControl: request.headers.get('cache-control') ?? 'no-cache',
    upsert: request.headers.get('x-upsert') === 'true',
  })
  return json(result)
}

function serveObject(object: Awaited<ReturnType<typeof readObject>>) {
  const bytes = Buffer.from(object.data)
  return new Response(bytes, {
    headers: {
      'content-type': object.metadata?.mimetype ?? 'application/octet-stream',
      'cache-control': object.metadata?.cacheControl ?? 'no-cache',
      etag: object.metadata?.eTag ?? '',
      'last-modified': new Date(object.updated_at).toUTCString(),
      'content-length': String(bytes.length),
    },
  })
}

interface ListedRow {
  id: string
  name: string
  metadata: unknown
  created_at: Date
  updated_at: Date
  last_accessed_at: Date
}

/** POST /object/list/{bucket}: the folders, then the files under `prefix` RLS shows, by name. */
async function list(db: Database, request: Request, bucket: string) {
  const caller = await callerOf(request)
  const body = await readJsonObject(request)
  const prefix = String(body.prefix ?? '').replace(/^\/+|\/+$/g, '')
  const base = prefix ? `${prefix}/` : ''
  await findBucket(db, bucket)
  const rows = await asCaller(db, caller, async (tx) => {
    const result = await tx.query<ListedRow>(
      `select id, name, metadata, created_at, updated_at, last_accessed_at from storage.objects
       where bucket_id = $1 and starts_with(name, $2) order by name`,
      [bucket, base],
    )
    return result.rows
  })
  const folders = new Set<string>()
  const files: ListedRow[] = []
  for (const row of rows) {
    const rest = row.name.slice(base.length)
    const slash = rest.indexOf('/')
    if (slash >= 0) folders.add(rest.slice(0, slash))
    else files.push({ ...row, name: rest })
  }
  const entries = [
    ...[...folders].map((name) => ({ name, id: null, updated_at: null, created_at: null })),
    ...files,
  ]
  return json(entries.slice(0, Number(body.limit ?? 100)))
}

/** The emulated Supabase Storage subset (avatars): a request whose path is below /storage/v1. */
export function createStorageHandler(db: Database, apiKeys?: ProjectKeys) {
  const routes: Route[] = [
    route('GET', '/object/public/:bucket/*', async (_request, params) => {
      const bucket = await findBucket(db, params.bucket)
      if (!bucket.public) throw storageErrors.bucketNotFound()
      return serveObject(await readObject(db, params.bucket, objectName(params.rest)))
    }),
    route('POST', '/object/list/:bucket', (request, params) => list(db, request, params.bucket)),
    route('DELETE', '/object/:bucket', async (request, params) => {
      const caller = await callerOf(request)
      const body = await readJsonObject(request)
      const prefixes = Array.isArray(body.prefixes) ? body.prefixes.map(String) : []
      const deleted = await asCaller(db, caller, async (tx) => {
        const { rows } = await tx.query(
          'delete from storage.objects where bucket_id = $1 and name = any($2::text[]) returning *',
          [params.bucket, prefixes],
        )
        return rows
      })
      return json(deleted)
    }),
    route('POST', '/object/:bucket/*', (request, params) => upload(db, request, params)),
  ]
  return async (request: Request, path: string): Promise<Response> => {
    if (!(request.method === 'GET' && path.startsWith('/object/public/'))) {
      const problem = apiKeyProblem(request, apiKeys)
      if (problem) return problem
    }
    const { handler, params } = matchRoute(routes, request.method, path)
    if (!handler)
      return renderStorageError(new StorageError(404, 'NotFound', 'Not Found', 'Route not found'))
    try {
      return await handler(request, params)
    } catch (error) {
      if (error instanceof StorageError) return renderStorageError(error)
      console.error('[supabase emulator] storage error', error)
      return renderStorageError(
        new StorageError(500, 'InternalError', 'Internal', (error as Error).message),
      )
    }
  }
}
