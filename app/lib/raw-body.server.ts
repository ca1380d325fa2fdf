/** Thrown when a request body is larger than the endpoint accepts. */
export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`)
  }
}

/**
 * Reads a request body as raw bytes, at most `limit` bytes, without parsing it: webhook
 * signatures are computed over the exact bytes sent.
 */
export async function readRawBody(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get('Content-Length') ?? NaN)
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLargeError(limit)
  if (!request.body) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => {})
      throw new BodyTooLargeError(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}
