import type { IncomingMessage } from 'node:http'

/** What the emulators accept by default (Supabase's own default upload limit is 50 MB). */
export const DEFAULT_BODY_LIMIT = 50 * 1024 * 1024

/** The body was larger than the limit; the emulator answers 413 in its provider's shape. */
export class BodyTooLarge extends Error {
  readonly status = 413
  constructor(readonly limit: number) {
    super(`Request body larger than ${limit} bytes`)
  }
}

/** Reads the whole body; throws BodyTooLarge past `limit` bytes (the rest is drained). */
export async function readBytes(req: IncomingMessage, limit = DEFAULT_BODY_LIMIT) {
  const chunks: Buffer[] = []
  let size = 0
  let tooLarge = false
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > limit) tooLarge = true
    if (!tooLarge) chunks.push(chunk as Buffer)
  }
  if (tooLarge) throw new BodyTooLarge(limit)
  return Buffer.concat(chunks)
}

export async function readText(req: IncomingMessage, limit = DEFAULT_BODY_LIMIT) {
  return (await readBytes(req, limit)).toString('utf8')
}

/** A form body's fields as an object (the last of repeated names wins). */
export function parseForm(text: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(text))
}

/** JSON text as a plain object; empty, invalid or non-object JSON gives `{}`. */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (!text.trim()) return {}
  try {
    const value: unknown = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {}
  } catch {
    return {}
  }
}
