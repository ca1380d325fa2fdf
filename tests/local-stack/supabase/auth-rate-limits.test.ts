import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_ANON_KEY, LOCAL_PUBLISHABLE_KEY, LOCAL_SECRET_KEY } from './keys'
import { raw, startTestStack, type TestStack } from './test-support'

// Two projects: one as a new project is (no IP forwarding, the config.toml mail budget), and
// one with "IP address forwarding" on, whose tests each use their own forwarded address
// (with the secret key) so that every test starts with full buckets.
let plain: TestStack
let forwarding: TestStack
beforeAll(async () => {
  ;[plain, forwarding] = await Promise.all([
    startTestStack(),
    startTestStack({ sbForwardedFor: true, rateLimits: { emailSent: 1000 } }),
  ])
})
afterAll(() => Promise.all([plain.close(), forwarding.close()]))

let nextAddress = 1
/** A client address of its own for one test (198.51.100.0/24 is for documentation). */
function freshAddress() {
  return `198.51.100.${nextAddress++}`
}

function post(stack: TestStack, path: string, body: unknown, headers: Record<string, string> = {}) {
  return raw(stack.emulator, `/auth/v1${path}`, {
    method: 'POST',
    headers: {
      apikey: LOCAL_ANON_KEY,
      'content-type': 'application/json',
      'x-supabase-api-version': '2024-01-01',
      ...headers,
    },
    body: JSON.stringify(body),
  })
}

/** Headers of a server that forwards its user's address with the secret key. */
function asServerFor(address: string) {
  return { apikey: LOCAL_SECRET_KEY, 'sb-forwarded-for': address }
}

const WRONG_PASSWORD = { email: 'nobody@example.com', password: 'not-the-password' }

/** Sends `count` requests one after the other; returns their statuses. */
async function statuses(count: number, send: () => Promise<Response>) {
  const result: number[] = []
  for (let i = 0; i < count; i++) {
    const response = await send()
    await response.body?.cancel()
    result.push(response.status)
  }
  return result
}

/**
 * Sends until the bucket refuses (429); returns how many were let through first. The token
 * bucket refills at one every 2 s, so on a slow machine a few more than 30 may pass.
 */
async function spend(send: () => Promise<Response>) {
  let passed = 0
  for (;;) {
    const response = await send()
    await response.body?.cancel()
    if (response.status === 429) return passed
    passed += 1
    if (passed > 90) throw new Error('never limited')
  }
}

const TOKEN = '/token?grant_type=password'
const VERIFY = ['/verify', { type: 'signup', token_hash: 'not-a-token' }, 403] as const

describe('per-IP request limits (token buckets of 30, one per endpoint)', () => {
  it.each([
    [TOKEN, WRONG_PASSWORD, 400, VERIFY],
    [...VERIFY, [TOKEN, WRONG_PASSWORD, 400]],
    ['/otp', { email: 'nobody@example.com', create_user: false }, 422, VERIFY],
    ['/recover', { email: 'nobody@example.com' }, 200, VERIFY],
  ] as const)('%s takes a burst of 30, then answers 429', async (path, body, status, other) => {
    const headers = asServerFor(freshAddress())
    const send = () => post(forwarding, path, body, headers)
    expect(await statuses(30, send)).toEqual(Array(30).fill(status))
    expect(await spend(send)).toBeLessThan(10)
    const refused = await send()
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({
      code: 'over_request_rate_limit',
      message: 'Request rate limit reached',
    })
    expect((await post(forwarding, other[0], other[1], headers)).status).toBe(other[2])
  })

  it('refills the token bucket at 150 per 5 minutes (one every 2 s)', async () => {
    const headers = asServerFor(freshAddress())
    const send = () => post(forwarding, TOKEN, WRONG_PASSWORD, headers)
    await spend(send)
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    expect((await send()).status).toBe(400)
  })

  it('does not count an unsupported grant type', async () => {
    const headers = asServerFor(freshAddress())
    const unsupported = await statuses(35, () =>
      post(forwarding, '/token?grant_type=nonsense', {}, headers),
    )
    expect(unsupported.every((status) => status === 400)).toBe(true)
  })
})

describe('Sb-Forwarded-For', () => {
  it('names exactly one IP address, as Go’s net.ParseIP reads it; anything else counts against the peer', async () => {
    const verify = async (header: string) => {
      const response = await post(
        forwarding,
        '/verify',
        { type: 'signup', token_hash: 'x' },
        asServerFor(header),
      )
      await response.body?.cancel()
    }
    const seen = new Set(forwarding.emulator.authClients())
    const fresh = () => forwarding.emulator.authClients().filter((client) => !seen.has(client))
    // A network, a list, a zone, brackets, a port: none is one address.
    const notOne = ['2001:db8:7:7::/64', '2001:db8:7::1, 2001:db8:7::2', 'fe80::7%eth0']
    for (const header of [...notOne, '[2001:db8:7::3]', '198.51.100.200:4711', 'unknown'])
      await verify(header)
    expect(fresh().filter((client) => client !== '127.0.0.1')).toEqual([])
    // One address in any of its spellings is that address, in Go's form.
    for (const header of [
      '2001:DB8:7:0::9',
      ' 2001:db8:7::9 ',
      '::ffff:c633:64c9',
      '198.51.100.201',
    ])
      await verify(header)
    expect(fresh().filter((client) => client !== '127.0.0.1')).toEqual([
      '2001:db8:7::9',
      '198.51.100.201',
    ])
  })

  it('is ignored with the publishable key: all its requests share the server address', async () => {
    const headers = { apikey: LOCAL_PUBLISHABLE_KEY }
    // Spend the bucket of the connection's own address (the loopback)...
    const own = await statuses(31, () =>
      post(forwarding, '/verify', { type: 'signup', token_hash: 'x' }, headers),
    )
    expect(own.at(-1)).toBe(429)
    // ...and a forwarded address does not help without the secret key.
    const forwarded = await post(
      forwarding,
      '/verify',
      { type: 'signup', token_hash: 'x' },
      { ...headers, 'sb-forwarded-for': freshAddress() },
    )
    expect(forwarded.status).toBe(429)
  })

  it('is ignored, even with the secret key, when the project has not enabled it', async () => {
    await spend(() => post(plain, TOKEN, WRONG_PASSWORD, asServerFor(freshAddress())))
    const other = await post(plain, TOKEN, WRONG_PASSWORD, asServerFor(freshAddress()))
    expect(other.status).toBe(429)
  })
})

describe('mail frequency and budget', () => {
  it('sends one mail of a kind per address per minute (max_frequency), magic link and recovery sharing one timer', async () => {
    const headers = asServerFor(freshAddress())
    await forwarding.createUser('often@example.com')
    expect(
      (await post(forwarding, '/recover', { email: 'often@example.com' }, headers)).status,
    ).toBe(200)
    const again = await post(forwarding, '/recover', { email: 'often@example.com' }, headers)
    expect(again.status).toBe(429)
    const body = (await again.json()) as { code: string; message: string }
    expect(body.code).toBe('over_email_send_rate_limit')
    expect(body.message).toMatch(
      /^For security purposes, you can only request this after \d+ seconds\.$/,
    )
    const magicLink = await post(forwarding, '/otp', { email: 'often@example.com' }, headers)
    expect(magicLink.status).toBe(429)
    const mails = (await forwarding.emulator.inbox.list()).filter(
      (mail) => mail.to === 'often@example.com',
    )
    expect(mails).toHaveLength(1)
  })

  it('sends at most the project’s hourly budget of auth mails (config.toml email_sent = 4)', async () => {
    for (let i = 0; i < 4; i++) {
      const response = await post(plain, '/signup', {
        email: `budget${i}@example.com`,
        password: 'correct-horse-battery',
      })
      expect(response.status).toBe(200)
    }
    const fifth = await post(plain, '/signup', {
      email: 'budget4@example.com',
      password: 'correct-horse-battery',
    })
    expect(fifth.status).toBe(429)
    expect(await fifth.json()).toEqual({
      code: 'over_email_send_rate_limit',
      message: 'email rate limit exceeded',
    })
    // Nothing of the refused sign-up was kept: no user, no mail.
    const { rows } = await plain.db.query(`select 1 from auth.users where email = $1`, [
      'budget4@example.com',
    ])
    expect(rows).toHaveLength(0)
    expect(await plain.emulator.inbox.latestFor('budget4@example.com')).toBeUndefined()
  })
})
