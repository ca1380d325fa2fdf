import { afterEach, describe, expect, it } from 'vitest'

import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import type { JwtSigning } from '../local-stack/supabase'
import { createSignedInUser, startTestApp, type TestApp } from './harness'

// Asymmetric signing keys (verified here, against the JWKS) or the legacy JWT secret (every
// signed-in page asks Supabase Auth).
let app: TestApp | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

/** How many times one dashboard view of a signed-in user asks Supabase Auth for the user. */
async function userLookupsOfAPageView(jwtSigning: JwtSigning) {
  app = await startTestApp({ supabaseAuth: { ...SUITE_AUTH_LIMITS, jwtSigning } })
  const user = await createSignedInUser(app)
  const before = app.stack.supabase.countsByPath()['/user'] ?? 0
  const page = await fetch(`${app.url}/dashboard`, { headers: { cookie: user.cookie } })
  expect(page.status).toBe(200)
  return (app.stack.supabase.countsByPath()['/user'] ?? 0) - before
}

describe('token signing', () => {
  it('legacy JWT secret: the page is served, having asked Supabase Auth', async () => {
    expect(await userLookupsOfAPageView('legacy')).toBeGreaterThan(0)
  })

  it('asymmetric signing keys: the page is served, the session verified here', async () => {
    expect(await userLookupsOfAPageView('asymmetric')).toBe(0)
  })
})
