import { describe, expect, test, vi } from 'vitest'

import { setContactDeliveryForTests } from '~/contact/delivery.server'
import { CONTACT_THANK_YOU } from '~/contact/schema'
import { captureContactDeliveries, VALID_CONTACT } from '~/contact/test-support'
import { logger } from '~/lib/server/logger.server'
import { setRateLimitStore } from '~/lib/server/rate-limit.server'

import { action } from './contact'

const valid = VALID_CONTACT
const deliveries = captureContactDeliveries()

/** Posts the form as a browser without JavaScript would, and unwraps `data()`. */
async function submit(fields: Record<string, string>) {
  const request = new Request('http://localhost/contact', {
    method: 'POST',
    body: new URLSearchParams(fields),
  })
  const result = await action({ request, params: {}, context: {} })
  const init = result.init && typeof result.init === 'object' ? result.init : {}
  return { status: init.status ?? 200, headers: new Headers(init.headers), body: result.data }
}

const sent = { status: 'sent', message: CONTACT_THANK_YOU }
const fields = ['firstName', 'lastName', 'email', 'company', 'message']
/** The conform answer that shows the form again with its values and errors. */
const formError = (error: Record<string, string[]>, initialValue: object = valid) => ({
  status: 'error',
  result: { status: 'error', initialValue, fields, error },
})

describe('/contact action', () => {
  test('a valid post is delivered, trimmed, and answered with the thank-you', async () => {
    const answer = await submit({ ...valid, firstName: '  Ada ', website: '' })
    expect(answer).toMatchObject({ status: 200, body: sent })
    expect(deliveries()).toEqual([valid])
  })

  test('invalid fields come back as conform errors with the values kept', async () => {
    const answer = await submit({ ...valid, firstName: ' A ', email: 'nope', message: '' })
    expect(answer.status).toBe(400)
    expect(answer.body).toEqual(
      formError(
        {
          firstName: ['First name must be at least 2 characters'],
          email: ['Enter a valid email address'],
          message: ['Message is required'],
        },
        { ...valid, firstName: ' A ', email: 'nope', message: undefined },
      ),
    )
    expect(deliveries()).toEqual([])
  })

  test('a filled honeypot looks like success and delivers nothing', async () => {
    expect(await submit({ ...valid, website: 'spam' })).toMatchObject({ status: 200, body: sent })
    expect(deliveries()).toEqual([])
  })

  test('the shared rate limit answers 429 with a form error and Retry-After', async () => {
    setRateLimitStore({
      async hit() {
        return { allowed: false, limit: 5, remaining: 0, retryAfterSeconds: 125 }
      },
    })
    const answer = await submit(valid)
    expect(answer.status).toBe(429)
    expect(answer.headers.get('Retry-After')).toBe('125')
    expect(answer.body).toEqual(
      formError({ '': ['You have sent too many messages. Please try again in 3 minutes.'] }),
    )
    expect(deliveries()).toEqual([])
  })

  test('a failing delivery keeps the form and logs the cause', async () => {
    const cause = new Error('mail server down')
    setContactDeliveryForTests({
      async deliver() {
        throw cause
      },
    })
    const logged = vi.spyOn(logger, 'error').mockImplementation(() => {})
    const answer = await submit(valid)
    expect(answer.status).toBe(500)
    expect(answer.body).toEqual(
      formError({ '': ['We could not send your message. Please try again in a moment.'] }),
    )
    expect(logged).toHaveBeenCalledWith({ err: cause }, 'contact: submission failed')
  })

  test.each<[string, RequestInit, number, string?]>([
    ['a JSON body', { headers: { 'Content-Type': 'application/json' }, body: '{}' }, 400],
    ['a text body', { headers: { 'Content-Type': 'text/plain' }, body: 'hi' }, 400],
    [
      'an oversized post',
      { body: new URLSearchParams({ ...valid, message: 'x'.repeat(200_000) }) },
      413,
      'Your message is too long.',
    ],
    ['another method (with Allow)', { method: 'PUT', body: 'x' }, 405],
  ])('%s is refused with a thrown %i response', async (_name, init, status, text) => {
    const request = new Request('http://localhost/contact', { method: 'POST', ...init })
    const thrown = await action({ request, params: {}, context: {} }).catch((e: unknown) => e)
    expect(thrown).toBeInstanceOf(Response)
    expect((thrown as Response).status).toBe(status)
    if (text) expect(await (thrown as Response).text()).toBe(text)
    if (status === 405) expect((thrown as Response).headers.get('Allow')).toBe('POST')
  })
})
