import { json } from '../http'

/**
 * A Supabase Storage error. Storage answers HTTP 400 for every client error and puts the
 * real status in the body's `statusCode` string (storage-api error-handler.ts).
 */
export class StorageError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    readonly error: string,
    message: string,
  ) {
    super(message)
  }
}

const fixed = (statusCode: number, code: string, error: string, message: string) => () =>
  new StorageError(statusCode, code, error, message)

export const storageErrors = {
  bucketNotFound: fixed(404, 'NoSuchBucket', 'Bucket not found', 'Bucket not found'),
  objectNotFound: fixed(404, 'NoSuchKey', 'not_found', 'Object not found'),
  duplicate: fixed(409, 'Duplicate', 'Duplicate', 'The resource already exists'),
  tooLarge: fixed(
    413,
    'EntityTooLarge',
    'Payload too large',
    'The object exceeded the maximum allowed size',
  ),
  mimeType: (mime: string) =>
    new StorageError(
      415,
      'InvalidMimeType',
      'invalid_mime_type',
      `mime type ${mime} is not supported`,
    ),
  accessDenied: (message = 'new row violates row-level security policy') =>
    new StorageError(403, 'AccessDenied', 'Unauthorized', message),
  invalidJwt: (message: string) => new StorageError(400, 'InvalidJWT', 'InvalidJWT', message),
  invalidKey: (key: string) =>
    new StorageError(400, 'InvalidKey', 'InvalidKey', `Invalid key: ${key}`),
}

export function renderStorageError(error: StorageError) {
  return json(
    {
      statusCode: String(error.statusCode),
      code: error.code,
      error: error.error,
      message: error.message,
    },
    { status: error.statusCode >= 500 ? 500 : 400 },
  )
}

/** Maps a Postgres error raised under RLS to Storage's error (storage database/errors.ts). */
export function fromDatabaseError(error: unknown): StorageError | undefined {
  const pgError = error as { code?: string; message?: string }
  if (pgError.code === '42501') {
    const rls = pgError.message?.includes('row-level security')
    return storageErrors.accessDenied(rls ? undefined : pgError.message)
  }
  if (pgError.code === '23505') return storageErrors.duplicate()
  return undefined
}
