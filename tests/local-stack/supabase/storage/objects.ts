import { createHash } from 'node:crypto'

import type { Database, Queryable } from '../../database'
import { bearerToken } from '../http'
import { type VerifiedClaims, verifyToken } from '../keys'
import { fromDatabaseError, storageErrors } from './errors'

const ROLES = new Set(['anon', 'authenticated', 'service_role'])

export interface Caller {
  role: string
  claims: VerifiedClaims
}

/** The caller's JWT (user access token or API key) decides the role, as in Storage and PostgREST. */
export async function callerOf(request: Request): Promise<Caller> {
  const token = bearerToken(request) ?? request.headers.get('apikey') ?? ''
  let claims: VerifiedClaims
  try {
    claims = await verifyToken(token)
  } catch (error) {
    throw storageErrors.invalidJwt((error as Error).message)
  }
  const role = typeof claims.role === 'string' ? claims.role : 'anon'
  if (!ROLES.has(role)) throw storageErrors.invalidJwt(`role "${role}" is not allowed`)
  return { role, claims }
}

/** Runs fn in a transaction as the caller's role with request.jwt.claims set, so RLS decides. */
export async function asCaller<T>(
  db: Database,
  caller: Caller,
  fn: (tx: Queryable) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction(async (tx) => {
      await tx.query(
        `select set_config('request.jwt.claims', $1, true), set_config('role', $2, true)`,
        [JSON.stringify({ ...caller.claims, role: caller.role }), caller.role],
      )
      return fn(tx)
    })
  } catch (error) {
    throw fromDatabaseError(error) ?? error
  }
}

export interface BucketRow {
  id: string
  public: boolean
  file_size_limit: string | number | null
  allowed_mime_types: string[] | null
}

export async function findBucket(db: Queryable, id: string): Promise<BucketRow> {
  const { rows } = await db.query<BucketRow>(
    'select id, public, file_size_limit, allowed_mime_types from storage.buckets where id = $1',
    [id],
  )
  if (!rows[0]) throw storageErrors.bucketNotFound()
  return rows[0]
}

function mimeAllowed(allowed: string[] | null, mime: string) {
  if (!allowed || allowed.length === 0) return true
  const [type] = mime.split(';')
  const base = type.trim().toLowerCase()
  return allowed.some((entry) => {
    const pattern = entry.toLowerCase()
    return pattern.endsWith('/*') ? base.startsWith(pattern.slice(0, -1)) : base === pattern
  })
}

export interface Upload {
  bucket: string
  name: string
  bytes: Buffer
  mimetype: string
  cacheControl: string
  upsert: boolean
}

/** Stores an object: bucket limits first, then the metadata row under RLS, then the bytes. */
export async function putObject(db: Database, caller: Caller, upload: Upload) {
  const bucket = await findBucket(db, upload.bucket)
  if (bucket.file_size_limit !== null && upload.bytes.length > Number(bucket.file_size_limit)) {
    throw storageErrors.tooLarge()
  }
  if (!mimeAllowed(bucket.allowed_mime_types, upload.mimetype))
    throw storageErrors.mimeType(upload.mimetype)
  const metadata = {
    eTag: `"${createHash('md5').update(upload.bytes).digest('hex')}"`,
    size: upload.bytes.length,
    mimetype: upload.mimetype,
    cacheControl: upload.cacheControl,
    lastModified: new Date().toISOString(),
    contentLength: upload.bytes.length,
    httpStatusCode: 200,
  }
  const owner = typeof caller.claims.sub === 'string' ? caller.claims.sub : null
  return asCaller(db, caller, async (tx) => {
    const conflict = upload.upsert
      ? `on conflict (bucket_id, name) do update set metadata = excluded.metadata, owner = excluded.owner,
           owner_id = excluded.owner_id, version = excluded.version, updated_at = now()`
      : ''
    const { rows } = await tx.query<{ id: string }>(
      `insert into storage.objects (bucket_id, name, owner, owner_id, metadata, version)
       values ($1, $2, $3, $4, $5::jsonb, gen_random_uuid()::text) ${conflict} returning id`,
      [upload.bucket, upload.name, owner, owner, JSON.stringify(metadata)],
    )
    await tx.query('reset role')
    await tx.query(
      `insert into local_emulator.storage_blobs (object_id, data) values ($1, $2)
       on conflict (object_id) do update set data = excluded.data`,
      [rows[0].id, upload.bytes],
    )
    return { Id: rows[0].id, Key: `${upload.bucket}/${upload.name}` }
  })
}

interface ObjectWithData {
  metadata: { mimetype?: string; cacheControl?: string; eTag?: string } | null
  updated_at: Date
  data: Buffer | Uint8Array
}

/** Reads an object's bytes and metadata (already authorised by the caller). */
export async function readObject(
  db: Queryable,
  bucket: string,
  name: string,
): Promise<ObjectWithData> {
  const { rows } = await db.query<ObjectWithData>(
    `select o.metadata, o.updated_at, b.data from storage.objects o
     join local_emulator.storage_blobs b on b.object_id = o.id where o.bucket_id = $1 and o.name = $2`,
    [bucket, name],
  )
  if (!rows[0]) throw storageErrors.objectNotFound()
  return rows[0]
}
