import { afterEach, describe, expect, it, vi } from 'vitest'

import { warnOfLegacyJwtSecret } from '../../app/auth/legacy-signing.server'
import { signingKeys } from '../../app/auth/signing-keys.server'
import { logger } from '../../app/lib/server/logger.server'
import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import type { JwtSigning } from '../local-stack/supabase'
import { createSignedInUser, startTestApp, type TestApp } from './harness'

/**
 * A project's token signing, as the server finds it at start: asymmetric signing keys (a
 * session is verified here, against the JWKS) or the legacy JWT secret (HS256: nothing to
 * verify against, so every signed-in page asks Supabase Auth, and the server warns).
 */
let app: TestApp | undefined
afterEach(async () => {
  vi.restoreAllMocks()
  await app?.close()
  app = undefined
})

async function startWith(jwtSigning: JwtSigning) {
  app = await startTestApp({ supabaseAuth: { ...SUITE_AUTH_LIMITS, jwtSigning } })
  signingKeys.expireForTests()
  const warn = vi.spyOn(logger, 'warn').mockImplementation(() => {})
  await warnOfLegacyJwtSecret()
  return { app, warn }
}

/** A dashboard view of a signed-in user; returns how many times it asked Supabase Auth for the user. */
async function userLookupsOfAPageView(app: TestApp) {
  const user = await createSignedInUser(app)
  const before = app.stack.supabase.countsByPath()['/user'] ?? 0
  const page = await fetch(`${app.url}/dashboard`, { headers: { cookie: user.cookie } })
  expect(page.status).toBe(200)
  return (app.stack.supabase.countsByPath()['/user'] ?? 0) - before
}

describe('token signing found at start', () => {
  it('legacy JWT secret: warns with the guide’s step, and pages ask Supabase Auth', async () => {
    const { app, warn } = await startWith('legacy')
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('move the project to asymmetric JWT signing keys'),
    )
    expect(await userLookupsOfAPageView(app)).toBeGreaterThan(0)
  })

  it('asymmetric signing keys: no warning, and pages are verified here', async () => {
    const { app, warn } = await startWith('asymmetric')
    expect(warn).not.toHaveBeenCalled()
    expect(await userLookupsOfAPageView(app)).toBe(0)
  })
})
