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

/** Reads an upload body: multipart form data (Blob/File uploads) or raw bytes (Buffer/ArrayBuffer). */
async function readUpload(request: Request) {
  const contentType = request.headers.get('content-type') ?? ''
  if (contentType.startsWith('multipart/form-data')) {
    const form = await request.formData()
    let file: File | undefined
    for (const [, value] of form) if (typeof value !== 'string' && !file) file = value
    if (!file) throw new StorageError(400, 'InvalidRequest', 'Error', 'No file was uploaded')
    const cacheControl = form.get('cacheControl')
    return {
      bytes: Buffer.from(await file.arrayBuffer()),
      mimetype: file.type || 'application/octet-stream',
      cacheControl: `max-age=${typeof cacheControl === 'string' ? cacheControl : '3600'}`,
    }
  }
  return {
    bytes: Buffer.from(await request.arrayBuffer()),
    mimetype: contentType || 'application/octet-stream',
    cacheControl: request.headers.get('cache-control') ?? 'no-cache',
  }
}

function upload(db: Database, method: 'POST' | 'PUT') {
  return async (request: Request, params: Record<string, string>) => {
    const caller = await callerOf(request)
    const body = await readUpload(request)
    const result = await putObject(db, caller, {
      bucket: params.bucket,
      name: objectName(params.rest),
      ...body,
      // PUT (update) replaces; POST replaces only with x-upsert: true.
      upsert: method === 'PUT' || request.headers.get('x-upsert') === 'true',
    })
    return json(result)
  }
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

/** POST /object/list/{bucket}: the files and folders directly under `prefix`, filtered by RLS. */
async function list(db: Database, request: Request, bucket: string) {
  const caller = await callerOf(request)
  const body = await readJsonObject(request)
  const prefix = String(body.prefix ?? '').replace(/^\/+|\/+$/g, '')
  const base = prefix ? `${prefix}/` : ''
  const limit = Number(body.limit ?? 100)
  const offset = Number(body.offset ?? 0)
  const search = String(body.search ?? '')
  const sortBy = (body.sortBy ?? {}) as { column?: string; order?: string }
  await findBucket(db, bucket)
  const rows = await asCaller(db, caller, async (tx) => {
    const result = await tx.query<ListedRow>(
      `select id, name, metadata, created_at, updated_at, last_accessed_at from storage.objects
       where bucket_id = $1 and starts_with(name, $2)`,
      [bucket, base],
    )
    return result.rows
  })
  const folders = new Map<string, Record<string, unknown>>()
  const files: Record<string, unknown>[] = []
  for (const row of rows) {
    const rest = row.name.slice(base.length)
    if (search && !rest.toLowerCase().includes(search.toLowerCase())) continue
    const slash = rest.indexOf('/')
    if (slash >= 0) {
      const folder = rest.slice(0, slash)
      folders.set(folder, {
        name: folder,
        id: null,
        updated_at: null,
        created_at: null,
        last_accessed_at: null,
        metadata: null,
      })
    } else {
      files.push({ ...row, name: rest })
    }
  }
  const column = (sortBy.column ?? 'name') as string
  const direction = sortBy.order === 'desc' ? -1 : 1
  files.sort((a, b) =>
    String(a[column]) < String(b[column])
      ? -direction
      : String(a[column]) > String(b[column])
        ? direction
        : 0,
  )
  const entries = [
    ...[...folders.values()].sort((a, b) => String(a.name).localeCompare(String(b.name))),
    ...files,
  ]
  return json(entries.slice(offset, offset + limit))
}

/** The emulated Supabase Storage subset (avatars): a request whose path is below /storage/v1. */
export function createStorageHandler(db: Database, apiKeys?: ProjectKeys) {
  const routes: Route[] = [
    route('GET', '/object/public/:bucket/*', async (_request, params) => {
      const bucket = await findBucket(db, params.bucket)
      if (!bucket.public) throw storageErrors.bucketNotFound()
      return serveObject(await readObject(db, params.bucket, objectName(params.rest)))
    }),
    route('GET', '/object/authenticated/:bucket/*', async (request, params) => {
      const caller = await callerOf(request)
      return serveObject(
        await asCaller(db, caller, (tx) => readObject(tx, params.bucket, objectName(params.rest))),
      )
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
    route('POST', '/object/:bucket/*', upload(db, 'POST')),
    route('PUT', '/object/:bucket/*', upload(db, 'PUT')),
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
      return await handler(request, params ?? {})
    } catch (error) {
      if (error instanceof StorageError) return renderStorageError(error)
      console.error('[supabase emulator] storage error', error)
      return renderStorageError(
        new StorageError(500, 'InternalError', 'Internal', (error as Error).message),
      )
    }
  }
}
