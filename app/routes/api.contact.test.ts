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

function post(
  body: BodyInit | null,
  headers: HeadersInit = { 'Content-Type': 'application/json' },
) {
  return action({
    request: new Request(URL, { method: 'POST', body, headers }),
    params: {},
    context: {},
  })
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

describe('POST /api/contact: valid submissions', () => {
  test('answers 200 with the thank-you message and delivers the message', async () => {
    await expectAnswer(await postJson(valid), 200, sent)
    expect(deliveries()).toEqual([valid])
  })

  test('trims every field and drops unknown keys before delivering', async () => {
    const padded = Object.fromEntries(Object.entries(valid).map(([k, v]) => [k, `  ${v}\n`]))
    await expectAnswer(await postJson({ ...padded, admin: true }), 200, sent)
    expect(deliveries()).toEqual([valid])
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

  test('accepts a form-encoded post', async () => {
    const body = new URLSearchParams(valid)
    await expectAnswer(await post(body, {}), 200, sent)
    expect(deliveries()).toEqual([valid])
  })

  test('accepts a multipart form post', async () => {
    const form = new FormData()
    for (const [name, value] of Object.entries(valid)) form.append(name, value)
    await expectAnswer(await post(form, {}), 200, sent)
    expect(deliveries()).toEqual([valid])
  })
})

describe('POST /api/contact: validation (400)', () => {
  test.each([
    ['firstName', 'First name'],
    ['lastName', 'Last name'],
    ['company', 'Company'],
  ])('%s needs at least 2 characters after trimming', async (field, label) => {
    const response = await postJson({ ...valid, [field]: ' x ' })
    await expectAnswer(
      response,
      400,
      failed(tooSmall(2, `${label} must be at least 2 characters`, field)),
    )
    expect(deliveries()).toEqual([])
  })

  test('message needs at least 10 characters', async () => {
    const response = await postJson({ ...valid, message: 'Too short' })
    const error = tooSmall(10, 'Message must be at least 10 characters', 'message')
    await expectAnswer(response, 400, failed(error))
  })

  test('2 and 10 characters are enough', async () => {
    await expectAnswer(
      await postJson({ ...valid, firstName: 'Al', message: '0123456789' }),
      200,
      sent,
    )
  })

  test.each(['not-an-email', 'ada@', '@example.com', 'ada@example', 'ada @example.com'])(
    'email must be a valid address: %s',
    async (email) => {
      const response = await postJson({ ...valid, email })
      const error = issue('invalid_string', 'string', 'Enter a valid email address', ['email'])
      await expectAnswer(response, 400, failed(error))
    },
  )

  test.each([
    ['firstName', 'First name', 100],
    ['lastName', 'Last name', 100],
    ['company', 'Company', 200],
    ['message', 'Message', 5000],
  ])('%s is at most its maximum length', async (field, label, max) => {
    const response = await postJson({ ...valid, [field]: 'x'.repeat(max + 1) })
    const error = issue('too_big', 'string', `${label} must be at most ${max} characters`, [field])
    await expectAnswer(response, 400, failed(error))
  })

  test('email is at most 254 characters', async () => {
    const response = await postJson({ ...valid, email: `${'a'.repeat(250)}@x.io` })
    const error = issue('too_big', 'string', 'Email must be at most 254 characters', ['email'])
    await expectAnswer(response, 400, failed(error))
  })

  test('every field is required, reported in field order', async () => {
    const response = await postJson({})
    await expectAnswer(
      response,
      400,
      failed(
        issue('invalid_type', 'string', 'First name is required', ['firstName']),
        issue('invalid_type', 'string', 'Last name is required', ['lastName']),
        issue('invalid_type', 'string', 'Email is required', ['email']),
        issue('invalid_type', 'string', 'Company is required', ['company']),
        issue('invalid_type', 'string', 'Message is required', ['message']),
      ),
    )
  })

  test('fields of the wrong type are reported, not crashed on', async () => {
    const response = await postJson({
      firstName: 42,
      lastName: null,
      email: ['ada@example.com'],
      company: { name: 'Analytical Engines' },
      message: true,
    })
    await expectAnswer(
      response,
      400,
      failed(
        issue('invalid_type', 'string', 'First name must be text', ['firstName']),
        issue('invalid_type', 'string', 'Last name must be text', ['lastName']),
        issue('invalid_type', 'string', 'Email must be text', ['email']),
        issue('invalid_type', 'string', 'Company must be text', ['company']),
        issue('invalid_type', 'string', 'Message must be text', ['message']),
      ),
    )
  })

  test('several problems in one field and across fields are all reported', async () => {
    const response = await postJson({ ...valid, firstName: '', email: 'nope' })
    await expectAnswer(
      response,
      400,
      failed(
        tooSmall(2, 'First name must be at least 2 characters', 'firstName'),
        issue('invalid_string', 'string', 'Enter a valid email address', ['email']),
      ),
    )
  })

  test.each([
    ['an array', []],
    ['null', null],
    ['a number', 42],
    ['a string', 'hello'],
  ])('a body that is %s is a validation failure at the root', async (_name, body) => {
    const message = 'The submission must be an object with the contact form fields'
    await expectAnswer(
      await postJson(body),
      400,
      failed(issue('invalid_type', 'object', message, [])),
    )
  })

  test.each(['{"firstName":', '', 'undefined', '\u0000'])('malformed JSON %j', async (body) => {
    const error = issue('invalid_type', 'object', 'The request body is not valid JSON', [])
    await expectAnswer(await post(body), 400, failed(error))
  })

  test('JSON that is not UTF-8 is malformed', async () => {
    const error = issue('invalid_type', 'object', 'The request body is not valid JSON', [])
    await expectAnswer(await post(new Uint8Array([0x7b, 0xff, 0x7d])), 400, failed(error))
  })

  test('a multipart post with a broken body cannot be read', async () => {
    const response = await post('garbage', { 'Content-Type': 'multipart/form-data; boundary=x' })
    const error = issue('invalid_type', 'object', 'The form data could not be read', [])
    await expectAnswer(response, 400, failed(error))
  })

  test('a form-encoded post is validated with the same rules', async () => {
    const response = await post(new URLSearchParams({ ...valid, email: 'nope', company: '' }), {})
    await expectAnswer(
      response,
      400,
      failed(
        issue('invalid_string', 'string', 'Enter a valid email address', ['email']),
        tooSmall(2, 'Company must be at least 2 characters', 'company'),
      ),
    )
  })

  test('a file in a multipart post is not text', async () => {
    const form = new FormData()
    for (const [name, value] of Object.entries(valid)) form.append(name, value)
    form.set('message', new Blob(['hello there, this is a file']), 'message.txt')
    const error = issue('invalid_type', 'string', 'Message must be text', ['message'])
    await expectAnswer(await post(form, {}), 400, failed(error))
  })
})

describe('POST /api/contact: transport errors', () => {
  const tooLarge = {
    success: false,
    message: `Request body must be at most ${CONTACT_MAX_BODY_BYTES} bytes`,
  }

  test('a body over the cap is refused with 413', async () => {
    const body = JSON.stringify({ ...valid, message: 'x'.repeat(CONTACT_MAX_BODY_BYTES) })
    await expectAnswer(await post(body), 413, tooLarge)
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
    const request = new Request(URL, {
      method: 'POST',
      body: stream,
      headers: { 'Content-Type': 'application/json' },
      duplex: 'half',
    } as RequestInit)
    await expectAnswer(await action({ request, params: {}, context: {} }), 413, tooLarge)
    // Reading stops at the cap (plus what the stream had queued), not at the end of the body.
    expect(sentChunks).toBeLessThanOrEqual(CONTACT_MAX_BODY_BYTES / chunk.length + 3)
  })

  test('a declared Content-Length over the cap is refused', async () => {
    const request = new Request(URL, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json', 'Content-Length': '10000000' },
    })
    await expectAnswer(await action({ request, params: {}, context: {} }), 413, tooLarge)
  })

  test.each([
    ['text/plain', { 'Content-Type': 'text/plain' }],
    ['no content type', {}],
    ['xml', { 'Content-Type': 'application/xml' }],
  ])('%s is refused with 415 and Accept-Post', async (_name, headers) => {
    const request = new Request(URL, {
      method: 'POST',
      body: new Blob([JSON.stringify(valid)]),
      headers,
    })
    const response = await action({ request, params: {}, context: {} })
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
  const notAllowed = { success: false, message: 'Method not allowed' }

  test('GET', async () => {
    const response = await loader()
    await expectAnswer(response, 405, notAllowed)
    expect(response.headers.get('Allow')).toBe('POST')
  })

  test.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'])('%s', async (method) => {
    const request = new Request(URL, { method, body: method === 'OPTIONS' ? null : '{}' })
    const response = await action({ request, params: {}, context: {} })
    await expectAnswer(response, 405, notAllowed)
    expect(response.headers.get('Allow')).toBe('POST')
  })
})

describe('POST /api/contact: abuse', () => {
  test("the page's trap field is not the API's: a caller sending that name is delivered", async () => {
    await expectAnswer(await postJson({ ...valid, website: 'http://example.com' }), 200, sent)
    await expectAnswer(await post(new URLSearchParams({ ...valid, website: 'x' }), {}), 200, sent)
    expect(deliveries()).toEqual([valid, valid])
    // And validated like any other submission.
    const invalidAnswer = await postJson({ website: 'x', email: 'nope' })
    expect(invalidAnswer.status).toBe(400)
    expect(deliveries()).toHaveLength(2)
  })

  test('an empty field of that name is ignored', async () => {
    await expectAnswer(await postJson({ ...valid, website: '' }), 200, sent)
    expect(deliveries()).toEqual([valid])
  })

  test('each client behind the trusted proxy gets 5 submissions per 10 minutes, then 429', async () => {
    vi.stubEnv('TRUSTED_PROXY_COUNT', '1')
    resetEnvForTests()
    const from = (ip: string) =>
      action({
        request: new Request(URL, {
          method: 'POST',
          body: JSON.stringify(valid),
          headers: { 'Content-Type': 'application/json', 'X-Forwarded-For': `203.0.113.9, ${ip}` },
        }),
        params: {},
        context: {},
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

  test('a delivery that throws answers 500 and logs the cause', async () => {
    const cause = new Error('mail server down')
    setContactDeliveryForTests({
      async deliver() {
        throw cause
      },
    })
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => {})
    await expectAnswer(await postJson(valid), 500, serverError)
    expect(logged).toHaveBeenCalledWith({ err: cause }, 'contact: submission failed')
  })

  test('a failing rate-limit store answers 500', async () => {
    setRateLimitStore({
      async hit() {
        throw new Error('database unavailable')
      },
    })
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => {})
    await expectAnswer(await postJson(valid), 500, serverError)
    expect(logged).toHaveBeenCalledOnce()
  })
})
