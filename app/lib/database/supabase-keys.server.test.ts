import { afterEach, describe, expect, it, vi } from 'vitest'

import { parseEnv } from '~/env.server'

import { authCallsOnBehalfOf } from './supabase-keys.server'

const PUBLISHABLE = 'sb_publishable_Q2x3y4z5a6b7c8d9e0f1g2_h3i4j5k6'
const SECRET = 'sb_secret_Z9y8x7w6v5u4t3s2r1q0p9_o8n7m6l5'
const SUPABASE_URL = 'https://abcd.supabase.co'

const withNewKeys = parseEnv({
  SUPABASE_URL,
  SUPABASE_ANON_KEY: PUBLISHABLE,
  SUPABASE_SERVICE_ROLE_KEY: SECRET,
})
const withLegacyKeys = parseEnv({ SUPABASE_URL })

/** The headers each call through `fetcher` was sent with, by URL. */
async function sentHeaders(
  fetcher: typeof fetch,
  url: string,
  headers: Record<string, string>,
): Promise<Headers> {
  const seen = vi.fn(async (..._args: Parameters<typeof fetch>) => new Response('{}'))
  vi.stubGlobal('fetch', seen)
  await fetcher(url, { method: 'POST', headers })
  const init = seen.mock.calls[0][1]
  return new Headers(init?.headers)
}

afterEach(() => vi.unstubAllGlobals())

describe('auth calls made on a visitor’s behalf', () => {
  it('forward only with a secret key (sb_secret_…), never with the legacy service_role key', () => {
    expect(authCallsOnBehalfOf('203.0.113.7', withNewKeys)).toBeTypeOf('function')
    expect(authCallsOnBehalfOf('203.0.113.7', withLegacyKeys)).toBeUndefined()
  })

  it('send the secret key and the visitor’s address to Supabase Auth', async () => {
    const fetcher = authCallsOnBehalfOf('203.0.113.7', withNewKeys)!
    const headers = await sentHeaders(
      fetcher,
      `${SUPABASE_URL}/auth/v1/token?grant_type=password`,
      {
        apikey: PUBLISHABLE,
        Authorization: `Bearer ${PUBLISHABLE}`,
      },
    )
    expect(headers.get('apikey')).toBe(SECRET)
    expect(headers.get('Authorization')).toBe(`Bearer ${SECRET}`)
    expect(headers.get('Sb-Forwarded-For')).toBe('203.0.113.7')
  })

  it('keep a user’s access token as the bearer', async () => {
    const fetcher = authCallsOnBehalfOf('203.0.113.7', withNewKeys)!
    const headers = await sentHeaders(fetcher, `${SUPABASE_URL}/auth/v1/user`, {
      apikey: PUBLISHABLE,
      Authorization: 'Bearer eyJ.user-token.sig',
    })
    expect(headers.get('apikey')).toBe(SECRET)
    expect(headers.get('Authorization')).toBe('Bearer eyJ.user-token.sig')
  })

  it('leave every other call (storage, PostgREST) on the public key, unforwarded', async () => {
    const fetcher = authCallsOnBehalfOf('203.0.113.7', withNewKeys)!
    const headers = await sentHeaders(fetcher, `${SUPABASE_URL}/storage/v1/object/avatars/x.png`, {
      apikey: PUBLISHABLE,
      Authorization: 'Bearer eyJ.user-token.sig',
    })
    expect(headers.get('apikey')).toBe(PUBLISHABLE)
    expect(headers.has('Sb-Forwarded-For')).toBe(false)
  })

  it('send no address when the visitor’s is not known', async () => {
    const fetcher = authCallsOnBehalfOf(null, withNewKeys)!
    const headers = await sentHeaders(fetcher, `${SUPABASE_URL}/auth/v1/otp`, {
      apikey: PUBLISHABLE,
    })
    expect(headers.get('apikey')).toBe(SECRET)
    expect(headers.has('Sb-Forwarded-For')).toBe(false)
  })
})
