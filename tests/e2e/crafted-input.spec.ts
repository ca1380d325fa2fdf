import { readdirSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'

import { LOCAL_SIGNING_KID } from '../local-stack/supabase/keys'
import { expect, test } from './fixtures'
import { E2E } from './ports'

/**
 * No crafted query string, cookie or header makes any page or API answer 5xx: every route
 * of app/routes is visited with each hostile input, signed out and with forged sessions
 * (an unreadable cookie counts as signed out).
 */

/** The URL of each route file (Remix flat routes), with a value for each parameter. */
function routeUrls(): string[] {
  const files = readdirSync(path.resolve('app/routes')).filter(
    (file) => /\.(ts|tsx)$/.test(file) && !/\.test\.tsx?$/.test(file),
  )
  return files.map((file) => {
    const segments = file
      .replace(/\.(ts|tsx)$/, '')
      .split('.')
      .filter((segment) => segment !== '_index')
      .map((segment) => (segment === '$' ? 'no-such-page' : segment.replace(/_$/, '')))
      .map((segment) => (segment.startsWith('$') ? 'pro' : segment))
    return `/${segments.join('/')}`
  })
}

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
  for (const url of routeUrls()) {
    const attempts: { query: string; headers: Record<string, string> }[] = [
      ...QUERIES.map((query) => ({ query, headers: {} })),
      ...COOKIES.map((cookie) => ({ query: '', headers: { cookie } })),
      ...HEADERS.map((headers) => ({ query: '', headers })),
    ]
    for (const attempt of attempts) {
      const target = attempt.query ? `${url}?${attempt.query}` : url
      const response = await request.get(target, { headers: attempt.headers, maxRedirects: 0 })
      if (response.status() >= 500)
        failures.push(
          `${response.status()} GET ${target} ${JSON.stringify(attempt.headers).slice(0, 80)}`,
        )
    }
  }
  expect(failures).toEqual([])
})

/** One raw HTTP/1.1 request on its own socket; resolves with the answer's status and body. */
function rawRequest(head: string[]) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const socket = net.connect(E2E.appPort, '127.0.0.1')
    let text = ''
    socket.on('data', (data: Buffer) => (text += data.toString('latin1')))
    socket.on('error', reject)
    socket.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) })
    })
    socket.write(`${[...head, 'Connection: close', 'Content-Length: 2'].join('\r\n')}\r\n\r\n{}`)
  })
}

test('a request-target or Host that is not what it seems gets 400, not a webhook exemption or a 500', async () => {
  const host = `Host: localhost:${E2E.appPort}`
  const foreign = 'Origin: https://evil.example'
  const attempts = [
    // A URL parser reads `//evil/api/webhooks/stripe` as host `evil`, path /api/webhooks/stripe.
    ['POST //evil/api/webhooks/stripe HTTP/1.1', host, foreign],
    ['POST /\\evil/api/webhooks/stripe HTTP/1.1', host, foreign],
    ['POST http://evil/api/webhooks/stripe HTTP/1.1', host, foreign],
    ['POST /api/contact HTTP/1.1', 'Host: local host', foreign],
  ]
  for (const head of attempts) {
    const answer = await rawRequest(head)
    expect(answer.status, head.join(' | ')).toBe(400)
    expect(JSON.parse(answer.body), head.join(' | ')).toEqual({ error: 'Bad request' })
  }
})
