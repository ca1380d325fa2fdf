import { afterEach, describe, expect, test, vi } from 'vitest'

import { setContactDeliveryForTests } from '~/contact/delivery.server'
import { CONTACT_THANK_YOU } from '~/contact/schema'
import { CONTACT_MAX_BODY_BYTES } from '~/contact/submit.server'
import { captureContactDeliveries, VALID_CONTACT } from '~/contact/test-support'
import { resetEnvForTests } from '~/env.server'
import { logger } from '~/lib/server/logger.server'
import { setRateLimitStore } from '~/lib/server/rate-limit.server'

import { action, loader } from './api.contact'

const URL = 'http://localhost/api/contact'
const valid = VALID_CONTACT
const sent = { success: true, message: CONTACT_THANK_YOU }
const deliveries = captureContactDeliveries()

afterEach(() => {
  vi.unstubAllEnvs()
  resetEnvForTests()
})

const send = (init: RequestInit) =>
  action({ request: new Request(URL, { method: 'POST', ...init }), params: {}, context: {} })

function post(
  body: BodyInit | null,
  headers: HeadersInit = { 'Content-Type': 'application/json' },
) {
  return send({ body, headers })
}

function postJson(value: unknown) {
  return post(JSON.stringify(value))
}

async function expectAnswer(response: Response, status: number, body: unknown) {
  expect(response.status).toBe(status)
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/)
  expect(response.headers.get('Cache-Control')).toBe('no-store')
  expect(await response.json()).toEqual(body)
}

/** A wire issue with the seven keys, for an issue that has no minimum. */
function issue(code: string, type: string | null, message: string, path: string[]) {
  return { code, minimum: null, type, inclusive: null, exact: null, message, path }
}

function tooSmall(minimum: number, message: string, field: string) {
  const base = { minimum, type: 'string', inclusive: true, exact: false }
  return { code: 'too_small', ...base, message, path: [field] }
}

const failed = (...errors: unknown[]) => ({ success: false, message: 'Validation failed', errors })

/** Each field in the order issues are reported, its label and its maximum length. */
const FIELDS = [
  ['firstName', 'First name', 100],
  ['lastName', 'Last name', 100],
  ['email', 'Email', 254],
  ['company', 'Company', 200],
  ['message', 'Message', 5000],
] as const
const eachField = (message: string) =>
  FIELDS.map(([field, label]) => issue('invalid_type', 'string', `${label} ${message}`, [field]))
const badEmail = issue('invalid_string', 'string', 'Enter a valid email address', ['email'])
const rootIssue = (message: string) => issue('invalid_type', 'object', message, [])
const notJson = rootIssue('The request body is not valid JSON')
const asForm = (fields: Record<string, string | Blob>) => {
  const form = new FormData()
  for (const [name, value] of Object.entries(fields)) form.set(name, value)
  return form
}

describe('POST /api/contact: valid submissions', () => {
  const padded = Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, `  ${v}\n`]))
  const shortest = { ...valid, firstName: 'Al', message: '0123456789' }

  test.each<[string, BodyInit, HeadersInit?, unknown?]>([
    ['a JSON post', JSON.stringify(valid)],
    ['every field trimmed, unknown keys dropped', JSON.stringify({ ...padded, admin: true })],
    ['2 and 10 characters', JSON.stringify(shortest), undefined, shortest],
    ['a form-encoded post', new URLSearchParams(valid), {}],
    ['a multipart form', asForm(valid), {}],
  ])('answers 200 with the thank-you and delivers %s', async (_, body, headers, delivered) => {
    await expectAnswer(await post(body, headers), 200, sent)
    expect(deliveries()).toEqual([delivered ?? valid])
  })

  test('accepts the maximum lengths, counted in characters, and a +json media type', async () => {
    const longest = {
      firstName: 'a'.repeat(100),
      lastName: 'b'.repeat(100),
      email: `${'c'.repeat(64)}@${'d'.repeat(185)}.com`,
      company: 'e'.repeat(200),
      message: '\u{1F600}'.repeat(5000),
    }
    // Every character escaped as a surrogate pair: the worst case the body cap allows for.
    const escaped = JSON.stringify(longest).replace(
      /[^\x20-\x7e]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    )
    expect(escaped.length).toBeGreaterThan(60_000)
    const response = await post(escaped, {
      'Content-Type': 'application/vnd.contact+json; charset=utf-8',
    })
    await expectAnswer(response, 200, sent)
    expect(deliveries()).toEqual([longest])
  })
})

describe('POST /api/contact: validation (400)', () => {
  type Row = [string, unknown, unknown[]]
  type Raw = [string, BodyInit, HeadersInit | undefined, unknown[]]

  test.each<Row>([
    ...(['firstName', 'lastName', 'company'] as const).map((field): Row => {
      const label = FIELDS.find(([name]) => name === field)![1]
      const error = tooSmall(2, `${label} must be at least 2 characters`, field)
      return [`${field} of 1 character after trimming`, { ...valid, [field]: ' x ' }, [error]]
    }),
    [
      'a message of 9 characters',
      { ...valid, message: 'Too short' },
      [tooSmall(10, 'Message must be at least 10 characters', 'message')],
    ],
    ...['not-an-email', 'ada@', '@example.com', 'ada@example', 'ada @example.com'].map(
      (email): Row => [`the email ${email}`, { ...valid, email }, [badEmail]],
    ),
    ...FIELDS.map(([field, label, max]): Row => [
      `${field} over ${max} characters`,
      {
        ...valid,
        [field]: field === 'email' ? `${'a'.repeat(max - 4)}@x.io` : 'x'.repeat(max + 1),
      },
      [issue('too_big', 'string', `${label} must be at most ${max} characters`, [field])],
    ]),
    ['no field (every one reported, in field order)', {}, eachField('is required')],
    [
      'fields of the wrong type',
      {
        firstName: 42,
        lastName: null,
        email: ['ada@example.com'],
        company: { name: 'Analytical Engines' },
        message: true,
      },
      eachField('must be text'),
    ],
    [
      'several problems across fields',
      { ...valid, firstName: '', email: 'nope' },
      [tooSmall(2, 'First name must be at least 2 characters', 'firstName'), badEmail],
    ],
    ...[[], null, 42, 'hello'].map((body): Row => [
      `a body of ${JSON.stringify(body)}`,
      body,
      [rootIssue('The submission must be an object with the contact form fields')],
    ]),
  ])('refuses %s', async (_, body, errors) => {
    await expectAnswer(await postJson(body), 400, failed(...errors))
    expect(deliveries()).toEqual([])
  })

  test.each<Raw>([
    ...['{"firstName":', '', 'undefined', '\u0000'].map((body): Raw => [
      `malformed JSON ${JSON.stringify(body)}`,
      body,
      undefined,
      [notJson],
    ]),
    ['JSON that is not UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), undefined, [notJson]],
    [
      'a multipart post with a broken body',
      'garbage',
      { 'Content-Type': 'multipart/form-data; boundary=x' },
      [rootIssue('The form data could not be read')],
    ],
    [
      'a form-encoded post, with the same rules',
      new URLSearchParams({ ...valid, email: 'nope', company: '' }),
      {},
      [badEmail, tooSmall(2, 'Company must be at least 2 characters', 'company')],
    ],
    [
      'a file in a multipart post (not text)',
      asForm({ ...valid, message: new File(['hello there, this is a file'], 'message.txt') }),
      {},
      [issue('invalid_type', 'string', 'Message must be text', ['message'])],
    ],
  ])('refuses %s', async (_, body, headers, errors) => {
    await expectAnswer(await post(body, headers), 400, failed(...errors))
  })
})

describe('POST /api/contact: transport errors', () => {
  const tooLarge = {
    success: false,
    message: `Request body must be at most ${CONTACT_MAX_BODY_BYTES} bytes`,
  }

  test.each([
    [
      'a body over the cap',
      {},
      JSON.stringify({ ...valid, message: 'x'.repeat(CONTACT_MAX_BODY_BYTES) }),
    ],
    ['a declared Content-Length over the cap', { 'Content-Length': '10000000' }, '{}'],
  ])('%s is refused with 413', async (_, headers, body) => {
    const init = { body, headers: { 'Content-Type': 'application/json', ...headers } }
    await expectAnswer(await send(init), 413, tooLarge)
    expect(deliveries()).toEqual([])
  })

  test('a streamed body with no Content-Length is cut off at the cap', async () => {
    const chunk = new TextEncoder().encode('x'.repeat(16 * 1024))
    let sentChunks = 0
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        sentChunks += 1
        controller.enqueue(chunk)
      },
    })
    const headers = { 'Content-Type': 'application/json' }
    await expectAnswer(
      await send({ body: stream, headers, duplex: 'half' } as RequestInit),
      413,
      tooLarge,
    )
    // Reading stops at the cap (plus what the stream had queued), not at the end of the body.
    expect(sentChunks).toBeLessThanOrEqual(CONTACT_MAX_BODY_BYTES / chunk.length + 3)
  })

  test.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['no content type', {}],
    ['xml', { 'Content-Type': 'application/xml' }],
  ])('%s is refused with 415 and Accept-Post', async (_name, headers) => {
    const response = await send({ body: new Blob([JSON.stringify(valid)]), headers })
    await expectAnswer(response, 415, {
      success: false,
      message: 'Content-Type must be application/json (or a form post)',
    })
    expect(response.headers.get('Accept-Post')).toBe(
      'application/json, application/x-www-form-urlencoded, multipart/form-data',
    )
    expect(deliveries()).toEqual([])
  })
})

describe('/api/contact: other methods (405)', () => {
  test.each(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s', async (method) => {
    const response =
      method === 'GET'
        ? await loader()
        : await send({ method, body: method === 'OPTIONS' ? null : '{}' })
    await expectAnswer(response, 405, { success: false, message: 'Method not allowed' })
    expect(response.headers.get('Allow')).toBe('POST')
  })
})

describe('POST /api/contact: abuse', () => {
  test("the page's trap field is not the API's: a caller sending that name is delivered", async () => {
    await expectAnswer(await postJson({ ...valid, website: 'http://example.com' }), 200, sent)
    await expectAnswer(await post(new URLSearchParams({ ...valid, website: 'x' }), {}), 200, sent)
    await expectAnswer(await postJson({ ...valid, website: '' }), 200, sent)
    expect(deliveries()).toEqual([valid, valid, valid])
    // And validated like any other submission.
    const invalidAnswer = await postJson({ website: 'x', email: 'nope' })
    expect(invalidAnswer.status).toBe(400)
    expect(deliveries()).toHaveLength(3)
  })

  test('each client behind the trusted proxy gets 5 submissions per 10 minutes, then 429', async () => {
    vi.stubEnv('TRUSTED_PROXY_COUNT', '1')
    resetEnvForTests()
    const from = (ip: string) =>
      send({
        body: JSON.stringify(valid),
        headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.9, ${ip}` },
      })
    for (let i = 0; i < 5; i++) expect((await from('198.51.100.1')).status).toBe(200)
    const limited = await from('198.51.100.1')
    await expectAnswer(limited, 429, {
      success: false,
      message: 'Too many requests. Please try again later.',
    })
    const retryAfter = Number(limited.headers.get('Retry-After'))
    expect(retryAfter).toBeGreaterThan(590)
    expect(retryAfter).toBeLessThanOrEqual(600)
    expect(deliveries()).toHaveLength(5)
    await expectAnswer(await from('198.51.100.2'), 200, sent)
  })

  test('without a trusted proxy all clients share one larger budget', async () => {
    // 100, spread over 8 rows of 13: 104 (rate-limit.server.ts, clientCounter).
    for (let i = 0; i < 104; i++) expect((await postJson({})).status).toBe(400)
    const limited = await postJson(valid)
    expect(limited.status).toBe(429)
    expect(limited.headers.get('Retry-After')).toMatch(/^\d+$/)
    expect(deliveries()).toEqual([])
  })
})

describe('POST /api/contact: failures (500)', () => {
  const serverError = { success: false, message: 'An error occurred while processing your request' }

  const cause = new Error('down')
  test.each([
    [
      'a delivery that throws',
      () => setContactDeliveryForTests({ deliver: () => Promise.reject(cause) }),
    ],
    [
      'a rate-limit store that throws',
      () => setRateLimitStore({ hit: () => Promise.reject(cause) }),
    ],
  ])('%s: answers 500 and logs the cause', async (_, fail) => {
    fail()
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => {})
    await expectAnswer(await postJson(valid), 500, serverError)
    expect(logged).toHaveBeenCalledExactlyOnceWith({ err: cause }, 'contact: submission failed')
  })
})
