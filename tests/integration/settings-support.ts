import { createClient } from '@supabase/supabase-js'

import { PASSWORD } from './accounts'
import type { TestApp } from './harness'

/** A POST of form fields (multipart when a File is among them) with the user's cookies. */
export function formPost(url: string, cookie: string, fields: Record<string, string | Blob>) {
  const body = new FormData()
  for (const [name, value] of Object.entries(fields)) body.append(name, value)
  return new Request(url, { method: 'POST', headers: { Cookie: cookie }, body })
}

export function pageGet(url: string, cookie: string) {
  return new Request(url, { headers: { Cookie: cookie } })
}

/** A supabase-js client signed in as the user: the public API as an attacker would use it. */
export async function userApiClient(app: TestApp, email: string) {
  const client = createClient(app.stack.env.SUPABASE_URL, app.stack.env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  const { error } = await client.auth.signInWithPassword({ email, password: PASSWORD })
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
