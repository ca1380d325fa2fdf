import { createUser, expect, PASSWORD, routeUrls, test } from './fixtures'
import { E2E } from './ports'
import { connect } from './raw-http'

/**
 * Every route of the build answers a POST far over the largest cap (the avatar's 8 MB), signed
 * out and in, with a length and chunked, before reading it whole: a 413, a redirect, 405 or 403.
 */
const OVERSIZED = 9 * 1024 * 1024
const CHUNK = Buffer.alloc(64 * 1024, 'a')

/** The answer's status to all of an oversized body but its last 64 KB, or 'no answer' in time. */
async function postOversized(url: string, cookie: string, chunked: boolean) {
  const connection = await connect('127.0.0.1', E2E.appPort)
  const head = [
    `POST ${url} HTTP/1.1`,
    `Host: localhost:${E2E.appPort}`,
    'Content-Type: application/x-www-form-urlencoded',
    `X-Forwarded-For: 10.88.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${OVERSIZED}`,
    ...(cookie ? [`Cookie: ${cookie}`] : []),
  ]
  const frame = chunked
    ? Buffer.concat([Buffer.from('10000\r\n'), CHUNK, Buffer.from('\r\n')])
    : CHUNK
  void (async () => {
    await connection.write(`${head.join('\r\n')}\r\n\r\n`)
    for (let sent = 0; sent < OVERSIZED - CHUNK.length; sent += CHUNK.length)
      if (!(await connection.write(frame))) return
  })()
  const answer = await connection.next(15_000)
  connection.close()
  return typeof answer === 'string' ? 'no answer' : answer.status
}

async function signedInCookie(email: string) {
  const response = await fetch(`${E2E.siteUrl}/sign-in`, {
    method: 'POST',
    body: new URLSearchParams({ email, password: PASSWORD }),
    redirect: 'manual',
    headers: { 'x-forwarded-for': '10.88.255.1' },
  })
  expect(response.status).toBe(303)
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ')
}

test('every route answers an oversized body before reading it whole', async () => {
  test.setTimeout(240_000)
  const user = await createUser()
  const cookie = await signedInCookie(user.email)
  const failures: string[] = []
  // Sign-out last: it ends the session the signed-in posts use.
  const routes = routeUrls().sort(
    (a, b) => Number(a.id === 'routes/sign-out') - Number(b.id === 'routes/sign-out'),
  )
  for (const { id, path, index } of routes) {
    const url = index ? `${path}?index` : path
    for (const session of ['', cookie]) {
      for (const chunked of [false, true]) {
        const status = await postOversized(url, session, chunked)
        const what = `${id} (${session ? 'signed in' : 'signed out'}, ${chunked ? 'chunked' : 'declared length'})`
        if (status === 'no answer' || (status >= 200 && status < 300) || status >= 500)
          failures.push(`${what}: ${status}`)
      }
    }
  }
  expect(failures).toEqual([])
})
