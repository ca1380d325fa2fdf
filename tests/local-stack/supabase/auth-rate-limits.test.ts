import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { LOCAL_PUBLISHABLE_KEY, LOCAL_SECRET_KEY } from './keys'
import { raw, startTestStack, type TestStack } from './test-support'

// The auth server's limits the product's suites do not reach (auth-forwarding.test.ts spends a
// forwarded visitor's token bucket, mail-budget.test.ts the hourly mail budget). One project as
// a new one is, one with "IP address forwarding" on, whose tests each forward their own address.
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
/** Headers of a server forwarding a visitor of its own (198.51.100.0/24 is for documentation). */
const asServerFor = (address = `198.51.100.${nextAddress++}`) => ({
  apikey: LOCAL_SECRET_KEY,
  'sb-forwarded-for': address,
})

async function post(
  stack: TestStack,
  path: string,
  body: unknown,
  headers: Record<string, string> = asServerFor(),
) {
  const response = await raw(stack.emulator, `/auth/v1${path}`, {
    method: 'POST',
    headers: { 'x-supabase-api-version': '2024-01-01', ...headers },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

const TOKEN = [
  '/token?grant_type=password',
  { email: 'nobody@example.com', password: 'nope' },
] as const
const VERIFY = ['/verify', { type: 'signup', token_hash: 'x' }] as const

/** Sends until the bucket refuses (429); returns how many passed first (it refills one per 2 s). */
async function spend(send: () => Promise<{ status: number }>) {
  for (let passed = 0; passed <= 90; passed++) if ((await send()).status === 429) return passed
  throw new Error('never limited')
}

describe('per-IP request limits (token buckets of 30, one per endpoint)', () => {
  it('a spent /verify bucket answers 429; /token, /otp and /recover keep their own', async () => {
    const headers = asServerFor()
    expect(await spend(() => post(forwarding, ...VERIFY, headers))).toBeGreaterThanOrEqual(30)
    expect(await post(forwarding, ...VERIFY, headers)).toEqual({
      status: 429,
      body: { code: 'over_request_rate_limit', message: 'Request rate limit reached' },
    })
    const others = [TOKEN, ['/otp', { email: 'a@example.com', create_user: false }]] as const
    for (const [path, body] of [...others, ['/recover', { email: 'a@example.com' }] as const])
      expect((await post(forwarding, path, body, headers)).status).not.toBe(429)
  })

  it('refills the token bucket at 150 per 5 minutes (one every 2 s)', async () => {
    const headers = asServerFor()
    await spend(() => post(forwarding, ...TOKEN, headers))
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    expect((await post(forwarding, ...TOKEN, headers)).status).toBe(400)
  })

  it('does not count an unsupported grant type', async () => {
    const headers = asServerFor()
    for (let i = 0; i < 35; i++)
      expect((await post(forwarding, '/token?grant_type=nonsense', {}, headers)).status).toBe(400)
  })
})

describe('Sb-Forwarded-For', () => {
  it('names exactly one IP address, as Go’s net.ParseIP reads it; anything else counts against the peer', async () => {
    const seen = new Set(forwarding.emulator.authClients())
    const fresh = () =>
      forwarding.emulator
        .authClients()
        .filter((client) => !seen.has(client) && client !== '127.0.0.1')
    // A network, a list, a zone, brackets, a port: none is one address.
    for (const header of [
      '2001:db8:7:7::/64',
      '2001:db8:7::1, 2001:db8:7::2',
      'fe80::7%eth0',
      '[2001:db8:7::3]',
      '198.51.100.200:4711',
      'unknown',
    ])
      await post(forwarding, ...VERIFY, asServerFor(header))
    expect(fresh()).toEqual([])
    // One address in any of its spellings is that address, in Go's form.
    for (const header of [
      '2001:DB8:7:0::9',
      ' 2001:db8:7::9 ',
      '::ffff:c633:64c9',
      '198.51.100.201',
    ])
      await post(forwarding, ...VERIFY, asServerFor(header))
    expect(fresh()).toEqual(['2001:db8:7::9', '198.51.100.201'])
  })

  it('is ignored with the publishable key, and with any key when the project has not enabled it', async () => {
    const publishable = { apikey: LOCAL_PUBLISHABLE_KEY }
    await spend(() => post(forwarding, ...VERIFY, publishable))
    const forwarded = { ...publishable, 'sb-forwarded-for': '198.51.100.250' }
    expect((await post(forwarding, ...VERIFY, forwarded)).status).toBe(429)
    await spend(() => post(plain, ...TOKEN))
    expect((await post(plain, ...TOKEN)).status).toBe(429)
  })
})

describe('mail frequency and budget', () => {
  it('sends one mail of a kind per address per minute (max_frequency), magic link and recovery sharing one timer', async () => {
    const headers = asServerFor()
    const email = 'often@example.com'
    await forwarding.createUser(email)
    expect((await post(forwarding, '/recover', { email }, headers)).status).toBe(200)
    expect(await post(forwarding, '/recover', { email }, headers)).toEqual({
      status: 429,
      body: {
        code: 'over_email_send_rate_limit',
        message: expect.stringMatching(
          /^For security purposes, you can only request this after \d+ seconds\.$/,
        ),
      },
    })
    expect((await post(forwarding, '/otp', { email }, headers)).status).toBe(429)
    const mails = await forwarding.emulator.inbox.list()
    expect(mails.filter((mail) => mail.to === email)).toHaveLength(1)
  })

  it('keeps nothing of a sign-up over the project’s hourly budget (config.toml email_sent = 4)', async () => {
    const signUp = (i: number) =>
      post(plain, '/signup', { email: `budget${i}@example.com`, password: 'correct-horse' })
    for (let i = 0; i < 4; i++) expect((await signUp(i)).status).toBe(200)
    expect(await signUp(4)).toEqual({
      status: 429,
      body: { code: 'over_email_send_rate_limit', message: 'email rate limit exceeded' },
    })
    const { rows } = await plain.db.query(`select 1 from auth.users where email = $1`, [
      'budget4@example.com',
    ])
    expect(rows).toHaveLength(0)
    expect(await plain.emulator.inbox.latestFor('budget4@example.com')).toBeUndefined()
  })
})
