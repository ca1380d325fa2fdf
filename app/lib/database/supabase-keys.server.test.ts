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

  // Auth calls carry the secret key (a user's token stays the bearer) and the visitor's
  // address when known; every other call (storage, PostgREST) keeps the public key, unforwarded.
  const user = 'Bearer eyJ.user-token.sig'
  it.each<[string | null, string, string, (string | null)[]]>([
    [
      '203.0.113.7',
      '/auth/v1/token',
      `Bearer ${PUBLISHABLE}`,
      [SECRET, `Bearer ${SECRET}`, '203.0.113.7'],
    ],
    ['203.0.113.7', '/auth/v1/user', user, [SECRET, user, '203.0.113.7']],
    ['203.0.113.7', '/storage/v1/object/avatars/x.png', user, [PUBLISHABLE, user, null]],
    [null, '/auth/v1/otp', `Bearer ${PUBLISHABLE}`, [SECRET, `Bearer ${SECRET}`, null]],
  ])(
    'for %s, %s with %s sends the key, bearer and address %j',
    async (address, path, bearer, sent) => {
      const fetcher = authCallsOnBehalfOf(address, withNewKeys)!
      const url = `${SUPABASE_URL}${path}`
      const headers = await sentHeaders(fetcher, url, {
        apikey: PUBLISHABLE,
        Authorization: bearer,
      })
      const names = ['apikey', 'Authorization', 'Sb-Forwarded-For']
      expect(names.map((name) => headers.get(name))).toEqual(sent)
    },
  )
})
