import { LOCAL_SIGNING_KID } from '../local-stack/supabase/keys'
import { expect, routeUrls, test } from './fixtures'

/** No hostile query, cookie or header makes any route of the build answer 5xx. */

const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** A session cookie carrying a token with a chosen header: no signature anyone checked. */
function forgedSession(header: object) {
  const token = `${base64url(header)}.${base64url({ sub: '00000000-0000-4000-8000-000000000000', role: 'authenticated', exp: 4102444800 })}.`
  const session = {
    access_token: token,
    refresh_token: 'x',
    expires_at: 4102444800,
    token_type: 'bearer',
    user: { id: 'x' },
  }
  return `base64-${base64url(session)}`
}

const QUERIES = [
  'error=__proto__',
  'error=constructor&notice=__proto__',
  'next=%2F%2Fevil.example&redirectTo=javascript:alert(1)',
  'session_id=..%2F..%2Fv1&checkout_id=%00&page=-1',
  'page=1e308&products=%E0%A4%A&metadata=%7B',
  'token_hash=%ZZ&type=__proto__&code=',
]
const COOKIES = [
  `sb-localhost-auth-token=${forgedSession({ alg: 'none', kid: LOCAL_SIGNING_KID })}`,
  `sb-localhost-auth-token=${forgedSession({ alg: 'RS256', kid: LOCAL_SIGNING_KID, typ: 'JWT' })}`,
  'sb-localhost-auth-token=base64-%%%garbage',
  'sb-localhost-auth-token.0=base64-eyJ; sb-localhost-auth-token.1=zzz',
  `sb-localhost-auth-token=${'a'.repeat(3000)}`,
]
const HEADERS: Record<string, string>[] = [
  { accept: '*/*;q=__proto__' },
  { 'content-type': 'multipart/form-data; boundary=' },
  { origin: 'null', referer: 'not a url' },
  { 'x-forwarded-for': 'not-an-ip, ::ffff:999.1.1.1' },
]

test('no route answers 5xx to hostile query strings, cookies or headers', async ({ request }) => {
  test.setTimeout(180_000)
  const failures: string[] = []
  for (const url of new Set(routeUrls().map((route) => route.path))) {
    const attempts: { query: string; headers: Record<string, string> }[] = [
      ...QUERIES.map((query) => ({ query, headers: {} })),
      ...COOKIES.map((cookie) => ({ query: '', headers: { cookie } })),
      ...HEADERS.map((headers) => ({ query: '', headers })),
    ]
    // A route's attempts at once: the server's time, not the round trips, is what they wait on.
    await Promise.all(
      attempts.map(async (attempt) => {
        const target = attempt.query ? `${url}?${attempt.query}` : url
        const response = await request.get(target, { headers: attempt.headers, maxRedirects: 0 })
        if (response.status() >= 500)
          failures.push(
            `${response.status()} GET ${target} ${JSON.stringify(attempt.headers).slice(0, 80)}`,
          )
      }),
    )
  }
  expect(failures).toEqual([])
})
