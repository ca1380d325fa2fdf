import { createClient } from '@supabase/supabase-js'

import type { TestApp } from './harness'

type RouteHandler = (args: {
  request: Request
  params: Record<string, string>
  context: Record<string, unknown>
}) => unknown

/** What a loader or action answered: a Response (thrown or returned) or Remix's data(). */
export interface RouteAnswer<T = unknown> {
  status: number
  headers: Headers
  data: T
  location: string | null
}

function isDataWithInit(
  value: unknown,
): value is { type: 'DataWithResponseInit'; data: unknown; init: ResponseInit | null } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'DataWithResponseInit'
  )
}

/** Calls a route's loader or action the way Remix does and normalises the answer. */
export async function callRoute<T = unknown>(
  handler: RouteHandler,
  request: Request,
): Promise<RouteAnswer<T>> {
  let result: unknown
  try {
    result = await handler({ request, params: {}, context: {} })
  } catch (thrown) {
    result = thrown
  }
  if (result instanceof Response) {
    const text = await result.text()
    return {
      status: result.status,
      headers: result.headers,
      data: text as T,
      location: result.headers.get('Location'),
    }
  }
  if (isDataWithInit(result)) {
    const headers = new Headers(result.init?.headers)
    return { status: result.init?.status ?? 200, headers, data: result.data as T, location: null }
  }
  if (result instanceof Error) throw result
  return { status: 200, headers: new Headers(), data: result as T, location: null }
}

/** A POST of form fields (multipart when a File is among them) with the user's cookies. */
export function formPost(url: string, cookie: string, fields: Record<string, string | Blob>) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  return new Request(url, { method: 'POST', headers: { Cookie: cookie }, body })
}

/** A GET with the user's cookies. */
export function pageGet(url: string, cookie: string) {
  return new Request(url, { headers: { Cookie: cookie } })
}

/** A supabase-js client signed in as the user: the public API as an attacker would use it. */
export async function userApiClient(app: TestApp, email: string) {
  const client = createClient(app.stack.env.SUPABASE_URL, app.stack.env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  const { error } = await client.auth.signInWithPassword({
    email,
    password: 'correct-horse-battery',
  })
  if (error) throw error
  return client
}

/** The smallest valid PNG (1×1), plus padding to reach a size. */
export function pngBytes(size = 67) {
  const png = Uint8Array.from(
    Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    ),
  )
  const bytes = new Uint8Array(Math.max(size, png.length))
  bytes.set(png)
  return bytes
}
