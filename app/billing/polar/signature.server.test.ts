import { createHmac } from 'node:crypto'
import { webhooks } from '@polar-sh/sdk/2026-10'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { validatePolarEvent } from './signature.server'

/**
 * Differential: every delivery is checked by the SDK's `validateEvent` and by
 * `validatePolarEvent`, which must accept the same ones (with the same payload) and refuse the
 * same ones (with the same error class and message).
 */
const SECRET = 'polar_whs_local_emulator_secret'
// A secret that is base64 of other bytes: the SDK also accepts MACs made with those bytes.
const RAW_KEY = Buffer.from('0123456789abcdef0123456789abcdef')
const WHSEC = `whsec_${RAW_KEY.toString('base64')}`
const NOW = 1_795_000_000 // seconds; the clock is fixed at NOW + 0.25 s

const body = JSON.stringify({
  type: 'subscription.updated',
  timestamp: '2026-11-20T10:00:00Z',
  data: { id: 'sub_1', note: 'héllo ✓' },
})

function mac(key: string | Buffer, id: string, timestamp: string | number, content: string) {
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key
  return createHmac('sha256', bytes).update(`${id}.${timestamp}.${content}`).digest('base64')
}

interface Delivery {
  name: string
  body: string
  headers: Record<string, string>
  secret?: string
}

function delivery(
  name: string,
  options: {
    body?: string
    id?: string
    timestamp?: string
    signature?: string | ((id: string, timestamp: string, content: string) => string)
    omit?: string[]
    secret?: string
  } = {},
): Delivery {
  const content = options.body ?? body
  const id = options.id ?? 'msg_2Tq9abc'
  const timestamp = options.timestamp ?? String(NOW)
  const signature =
    typeof options.signature === 'function'
      ? options.signature(id, timestamp, content)
      : (options.signature ?? `v1,${mac(SECRET, id, timestamp, content)}`)
  const headers: Record<string, string> = {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
  }
  for (const name of options.omit ?? []) delete headers[name]
  return { name, body: content, headers, secret: options.secret }
}

const valid = (id: string, timestamp: string, content: string) =>
  `v1,${mac(SECRET, id, timestamp, content)}`

const corpus: Delivery[] = [
  delivery('valid'),
  delivery('valid, signed by the whsec_ secret as text', {
    secret: WHSEC,
    signature: (id, ts, c) => `v1,${mac(WHSEC, id, ts, c)}`,
  }),
  delivery('valid, signed by the whsec_ secret decoded', {
    secret: WHSEC,
    signature: (id, ts, c) => `v1,${mac(RAW_KEY, id, ts, c)}`,
  }),
  delivery('raw key of a whsec_ secret, but the secret is the plain one', {
    signature: (id, ts, c) => `v1,${mac(RAW_KEY, id, ts, c)}`,
  }),
  delivery('wrong secret', { signature: (id, ts, c) => `v1,${mac('other', id, ts, c)}` }),
  delivery('empty secret', { secret: '' }),
  delivery('tampered body', {
    signature: (id, ts) => `v1,${mac(SECRET, id, ts, body.replace('sub_1', 'sub_2'))}`,
  }),
  delivery('tampered id', { signature: (_id, ts, c) => `v1,${mac(SECRET, 'msg_other', ts, c)}` }),
  delivery('tampered timestamp', {
    signature: (id, _ts, c) => `v1,${mac(SECRET, id, String(NOW - 1), c)}`,
  }),
  delivery('several signatures, the last one valid', {
    signature: (id, ts, c) => `v1,${mac('x', id, ts, c)} v1,AAAA ${valid(id, ts, c)}`,
  }),
  delivery('several signatures, the first one valid', {
    signature: (id, ts, c) => `${valid(id, ts, c)} v1,${mac('x', id, ts, c)}`,
  }),
  delivery('several signatures, none valid', {
    signature: (id, ts, c) => `v1,${mac('x', id, ts, c)} v1,${mac('y', id, ts, c)}`,
  }),
  delivery('v2 prefix', { signature: (id, ts, c) => `v2,${mac(SECRET, id, ts, c)}` }),
  delivery('v1a prefix', { signature: (id, ts, c) => `v1a,${mac(SECRET, id, ts, c)}` }),
  delivery('no version', { signature: (id, ts, c) => mac(SECRET, id, ts, c) }),
  delivery('a valid entry after a v2 one', {
    signature: (id, ts, c) => `v2,${mac(SECRET, id, ts, c)} ${valid(id, ts, c)}`,
  }),
  delivery('extra comma part after the signature', {
    signature: (id, ts, c) => `${valid(id, ts, c)},extra`,
  }),
  delivery('two spaces between entries', {
    signature: (id, ts, c) => `v1,AAAA  ${valid(id, ts, c)}`,
  }),
  delivery('signature without padding', {
    signature: (id, ts, c) => valid(id, ts, c).replace(/=+$/, ''),
  }),
  delivery('signature in base64url', {
    signature: (id, ts, c) => valid(id, ts, c).replaceAll('+', '-').replaceAll('/', '_'),
  }),
  delivery('signature with a trailing invalid character', {
    signature: (id, ts, c) => `${valid(id, ts, c)}!`,
  }),
  delivery('signature with a tab inside', {
    signature: (id, ts, c) => {
      const value = valid(id, ts, c)
      return `${value.slice(0, 10)}\t${value.slice(10)}`
    },
  }),
  delivery('non-base64 signature', { signature: 'v1,@@not-base64@@' }),
  delivery('empty signature entry', { signature: 'v1,' }),
  delivery('truncated signature', { signature: (id, ts, c) => valid(id, ts, c).slice(0, 20) }),
  delivery('signature with extra bytes', {
    signature: (id, ts, c) =>
      `v1,${Buffer.concat([Buffer.from(mac(SECRET, id, ts, c), 'base64'), Buffer.from([0])]).toString('base64')}`,
  }),
  delivery('timestamp 300 s old', { timestamp: String(NOW - 300) }),
  delivery('timestamp too old', { timestamp: String(NOW - 301) }),
  delivery('timestamp 300 s ahead', { timestamp: String(NOW + 300) }),
  delivery('timestamp too new', { timestamp: String(NOW + 301) }),
  delivery('fractional timestamp, signed floored', {
    timestamp: `${NOW}.9`,
    signature: (id, _ts, c) => valid(id, String(NOW), c),
  }),
  delivery('fractional timestamp, signed as sent', { timestamp: `${NOW}.9` }),
  delivery('timestamp in exponent form', {
    timestamp: '1.795e9',
    signature: (id, _ts, c) => valid(id, String(NOW), c),
  }),
  delivery('timestamp with spaces', {
    timestamp: ` ${NOW} `,
    signature: (id, _ts, c) => valid(id, String(NOW), c),
  }),
  delivery('timestamp not a number', { timestamp: 'yesterday' }),
  delivery('timestamp in milliseconds', { timestamp: String(NOW * 1000) }),
  delivery('missing webhook-id', { omit: ['webhook-id'] }),
  delivery('missing webhook-timestamp', { omit: ['webhook-timestamp'] }),
  delivery('missing webhook-signature', { omit: ['webhook-signature'] }),
  delivery('empty webhook-id', { id: '' }),
  delivery('body not JSON', { body: '{"type":' }),
  delivery('body is null', { body: 'null' }),
  delivery('body is an array', { body: '[]' }),
  delivery('body without a type', { body: '{"data":{}}' }),
  delivery('type not a string', { body: '{"type":5,"data":{}}' }),
  delivery('unknown type', { body: '{"type":"subscription.exploded","data":{}}' }),
  delivery('type from the prototype', { body: '{"type":"toString","data":{}}' }),
  delivery('known type: order.paid', { body: '{"type":"order.paid","data":{"id":"o"}}' }),
  delivery('known type: checkout.created', { body: '{"type":"checkout.created","data":{}}' }),
]

async function sdkAnswer(d: Delivery) {
  try {
    return { payload: await webhooks.validateEvent(d.body, d.headers, d.secret ?? SECRET) }
  } catch (error) {
    return errorAnswer(error)
  }
}

function ownAnswer(d: Delivery) {
  try {
    return { payload: validatePolarEvent(d.body, new Headers(d.headers), d.secret ?? SECRET) }
  } catch (error) {
    return errorAnswer(error)
  }
}

function errorAnswer(error: unknown) {
  const kind =
    error instanceof webhooks.PolarWebhookVerificationError
      ? 'verification'
      : error instanceof webhooks.PolarWebhookUnknownTypeError
        ? 'unknown type'
        : error instanceof webhooks.PolarWebhookError
          ? 'webhook error'
          : 'other'
  return { kind, message: (error as Error).message }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] })
  vi.setSystemTime(NOW * 1000 + 250)
})
afterEach(() => vi.useRealTimers())

describe('validatePolarEvent against the SDK', () => {
  it.each(corpus.map((d) => [d.name, d] as const))('%s', async (_name, d) => {
    expect(ownAnswer(d)).toEqual(await sdkAnswer(d))
  })

  it('the corpus covers acceptance and every refusal', async () => {
    const kinds = new Set<string>()
    for (const d of corpus) {
      const answer = await sdkAnswer(d)
      kinds.add('payload' in answer ? 'accepted' : `${answer.kind}: ${answer.message}`)
    }
    expect([...kinds].sort()).toEqual(
      [
        'accepted',
        "verification: Secret can't be empty",
        'verification: Missing required headers',
        'verification: Invalid signature headers',
        'verification: Message timestamp too old',
        'verification: Message timestamp too new',
        'verification: No matching signature found',
        'webhook error: Failed to parse webhook payload',
        'unknown type: Unknown webhook event type: null',
        'unknown type: Unknown webhook event type: "subscription.exploded"',
        'unknown type: Unknown webhook event type: "toString"',
      ].sort(),
    )
  })

  it('a tampered copy of each accepted delivery is refused by both', async () => {
    for (const d of corpus) {
      if (!('payload' in (await sdkAnswer(d)))) continue
      const tampered = { ...d, body: `${d.body} ` }
      expect(ownAnswer(tampered)).toEqual(await sdkAnswer(tampered))
      expect(ownAnswer(tampered)).toMatchObject({ kind: 'verification' })
    }
  })
})
