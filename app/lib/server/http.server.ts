import type { ActionFunction, ActionFunctionArgs, ServerBuild } from '@remix-run/node'

/** A request body read within a byte cap and decoded by its content type. */
export type RequestPayload =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; value: FormData }
  | { kind: 'malformed'; format: 'json' | 'form' }
  | { kind: 'too-large' }
  | { kind: 'unsupported-media-type' }

/** Media types `readPayload` decodes, for an `Accept-Post` header. */
export const ACCEPTED_MEDIA_TYPES = [
  'application/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
] as const

/** The media type of the request without parameters, lower-cased ('' when absent). */
export function mediaType(request: Request): string {
  return (request.headers.get('Content-Type') ?? '').split(';')[0].trim().toLowerCase()
}

/** The raw body, or null once over `maxBytes` (a declared `Content-Length` over it: unread). */
export async function readBodyWithLimit(
  request: Request,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer> | null> {
  chosenCaps.set(request, maxBytes)
  const declared = Number(request.headers.get('Content-Length'))
  if (Number.isFinite(declared) && declared > maxBytes) return null
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array<ArrayBuffer>[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      // Stop reading, without cancelling: a cancelled body destroys the request and its
      // socket before the 413 is written; the server closes the connection after the answer.
      reader.releaseLock()
      return null
    }
    chunks.push(value)
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer())
}

/** A JSON or form body of at most `maxBytes`; bad input is a `kind` to answer, never a throw. */
export async function readPayload(request: Request, maxBytes: number): Promise<RequestPayload> {
  const type = mediaType(request)
  const json = type === 'application/json' || /^application\/[^/]+\+json$/.test(type)
  if (!json && !(ACCEPTED_MEDIA_TYPES as readonly string[]).includes(type)) {
    return { kind: 'unsupported-media-type' }
  }
  const body = await readBodyWithLimit(request, maxBytes)
  if (body === null) return { kind: 'too-large' }
  if (json) {
    try {
      return {
        kind: 'json',
        value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body)),
      }
    } catch {
      return { kind: 'malformed', format: 'json' }
    }
  }
  try {
    const contentType = request.headers.get('Content-Type') ?? type
    const form = await new Response(body, { headers: { 'Content-Type': contentType } }).formData()
    return { kind: 'form', value: form }
  } catch {
    return { kind: 'malformed', format: 'form' }
  }
}

/** Body cap of an ordinary form (no file): far above any real submission, far below harm. */
export const FORM_MAX_BYTES = 64 * 1024

/** For page actions: the posted form within `maxBytes`, else a 413, 415 or 400 thrown. */
export async function readFormData(
  request: Request,
  { maxBytes = FORM_MAX_BYTES, ...options }: { headers?: HeadersInit; maxBytes?: number } = {},
): Promise<FormData> {
  const payload = await readPayload(request, maxBytes)
  if (payload.kind === 'form') return payload.value
  const headers = new Headers(options.headers)
  headers.set('Cache-Control', 'no-store')
  if (payload.kind === 'too-large') throw tooLarge(maxBytes, headers)
  const status = payload.kind === 'unsupported-media-type' ? 415 : 400
  throw new Response('Please submit the form.', { status, headers })
}

function tooLarge(maxBytes: number, headers = new Headers({ 'Cache-Control': 'no-store' })) {
  const message = `That submission is too large (the limit is ${maxBytes / 1024} KB).`
  return new Response(message, { status: 413, headers })
}

/** The cap the route's own reader chose for a request's body (`readBodyWithLimit`). */
const chosenCaps = new WeakMap<Request, number>()

const unserved = () => methodNotAllowed('GET, HEAD')

/** Each action behind its reader's cap, else FORM_MAX_BYTES; no action: 405, not Remix's. */
export function capRequestBodies(build: ServerBuild): ServerBuild {
  const routes = { ...build.routes }
  for (const [id, route] of Object.entries(routes)) {
    const { action, default: page } = route?.module ?? {}
    if (!route || (!action && page)) continue
    const capped405 = action ? (args: ActionFunctionArgs) => capped(action, args) : unserved
    routes[id] = { ...route, module: { ...route.module, action: capped405 } }
  }
  return { ...build, routes }
}

async function capped(action: ActionFunction, args: ActionFunctionArgs) {
  const body = args.request.body
  if (!body) return action(args)
  const declared = Number(args.request.headers.get('Content-Length'))
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined
  let size = 0
  let refusedAt: number | null = null
  const request: Request = new Request(args.request, {
    duplex: 'half',
    body: new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const cap = chosenCaps.get(request) ?? FORM_MAX_BYTES
          if (declared > cap || size > cap) {
            // Read no further, without cancelling: a cancelled body destroys the socket before
            // the 413 is written (server-app.js drops the rest after the answer).
            refusedAt = cap
            reader?.releaseLock()
            return controller.error(new Error('request body over its cap'))
          }
          reader ??= body.getReader()
          const { done, value } = await reader.read()
          if (done) return controller.close()
          size += value.byteLength
          controller.enqueue(value)
        },
      },
      // Nothing read ahead: only what the action asks for, once its reader chose a cap.
      { highWaterMark: 0 },
    ),
  } as RequestInit)
  const answer = await Promise.resolve(action({ ...args, request })).catch((error: unknown) => {
    if (refusedAt === null) throw error
  })
  if (refusedAt !== null) throw tooLarge(refusedAt)
  return answer
}

/** A form's fields as a plain object: the first value of each name (a string or a File). */
export function formDataToObject(form: FormData): Record<string, FormDataEntryValue> {
  const first = new Map<string, FormDataEntryValue>()
  for (const [name, value] of form) {
    if (!first.has(name)) first.set(name, value)
  }
  // fromEntries defines own properties, so a field named "__proto__" stays a plain field.
  return Object.fromEntries(first)
}

export function jsonNoStore(body: unknown, init: ResponseInit = {}): Response {
  const headers = new Headers(init.headers)
  headers.set('Cache-Control', 'no-store')
  return Response.json(body, { ...init, headers })
}

export function methodNotAllowed(allow: string, body: unknown = { error: 'Method not allowed' }) {
  return jsonNoStore(body, { status: 405, headers: { Allow: allow } })
}

/** The HTTP status a provider SDK error carries (`statusCode`). */
export function httpStatusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode
  return typeof status === 'number' ? status : undefined
}
