import Stripe from 'stripe'
import { afterEach, describe, expect, it } from 'vitest'

import type { StripeEmulatorOptions } from './index'
import { createProSession, sdkFor, setupStack, subscribeThroughCheckout } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

afterEach(async () => {
  await stack.teardown()
})

type Call = (stripe: Stripe) => Promise<unknown>
const missing = { type: 'StripeInvalidRequestError', code: 'resource_missing' }
const noSuch = (kind: string, id: string, param: string, statusCode = 400) => ({
  ...missing,
  statusCode,
  param,
  message: `No such ${kind}: '${id}'`,
})
const customer = async (stripe: Stripe) => (await stripe.customers.create({})).id
const flow = (flow_data: unknown) => async (stripe: Stripe) =>
  stripe.billingPortal.sessions.create({
    customer: await customer(stripe),
    flow_data: flow_data as Stripe.BillingPortal.SessionCreateParams.FlowData,
  })
const confirm =
  (price: string, item?: string): Call =>
  async (stripe) => {
    const { customerId, subscriptionId } = await subscribeThroughCheckout(stripe, stack.emulator)
    const sub = await stripe.subscriptions.retrieve(subscriptionId)
    return stripe.billingPortal.sessions.create({
      customer: customerId,
      flow_data: {
        type: 'subscription_update_confirm',
        subscription_update_confirm: {
          subscription: subscriptionId,
          items: [{ id: item ?? sub.items.data[0].id, price }],
        },
      },
    })
  }
const confirmAt = 'flow_data[subscription_update_confirm]'

/** What Stripe refuses, refused in its error shape (the SDK raises the matching class). */
describe('refusals in Stripe shape', () => {
  it.each<[string, Call, object, Partial<StripeEmulatorOptions>?]>([
    [
      'customer with customer_email',
      async (stripe) => createProSession(stripe, { customer: await customer(stripe) }),
      {
        statusCode: 400,
        param: 'customer_email',
        message: 'You may only specify one of these parameters: customer, customer_email.',
      },
    ],
    [
      'a wrong API key',
      () => sdkFor(stack.emulator, 'sk_test_wrong_key_1234').customers.list(),
      {
        type: 'StripeAuthenticationError',
        statusCode: 401,
        message: expect.stringMatching(/^Invalid API Key provided: sk_test_\*+1234$/),
      },
    ],
    [
      'a missing subscription',
      (stripe) => stripe.subscriptions.retrieve('sub_missing'),
      noSuch('subscription', 'sub_missing', 'id', 404),
    ],
    [
      'a portal session for an unknown customer',
      (stripe) => stripe.billingPortal.sessions.create({ customer: 'cus_missing' }),
      noSuch('customer', 'cus_missing', 'customer'),
    ],
    [
      'an unknown portal configuration',
      async (stripe) =>
        stripe.billingPortal.sessions.create({
          customer: await customer(stripe),
          configuration: 'bpc_1NotOnThisAccount',
        }),
      noSuch('configuration', 'bpc_1NotOnThisAccount', 'configuration'),
    ],
    [
      'an unknown flow_data type',
      flow({ type: 'payment_method_updates' }),
      { statusCode: 400, param: 'flow_data[type]' },
    ],
    [
      'a flow type the emulator does not implement',
      flow({ type: 'subscription_cancel', subscription_cancel: { subscription: 'sub_1' } }),
      { statusCode: 400, message: expect.stringContaining('emulator') },
    ],
    [
      'a redirect after completion without its URL',
      flow({ type: 'payment_method_update', after_completion: { type: 'redirect' } }),
      {
        statusCode: 400,
        code: 'parameter_missing',
        param: 'flow_data[after_completion][redirect][return_url]',
      },
    ],
    [
      'invoice payments of an unknown invoice',
      (stripe) => stripe.invoicePayments.list({ invoice: 'in_nope' }),
      noSuch('invoice', 'in_nope', 'invoice'),
    ],
    [
      'invoice payments of an unknown status',
      (stripe) => stripe.invoicePayments.list({ status: 'late' as 'paid' }),
      { statusCode: 400, param: 'status' },
    ],
    [
      'an unknown PaymentIntent',
      (stripe) => stripe.paymentIntents.retrieve('pi_nope'),
      { ...missing, statusCode: 404 },
    ],
    [
      'a parameter of invoices.pay it does not model',
      (stripe) => stripe.invoices.pay('in_nope', { forgive: true }),
      { statusCode: 400, param: 'forgive' },
    ],
    [
      'an unknown key of the created filter',
      (stripe) => stripe.events.list({ created: { after: 1 } as Stripe.RangeQueryParam }),
      { statusCode: 400, code: 'parameter_unknown', param: 'created[after]' },
    ],
    [
      'a created bound that is not an integer',
      (stripe) => stripe.events.list({ created: { gte: 'yesterday' as unknown as number } }),
      { statusCode: 400, param: 'created[gte]', message: 'Invalid integer: yesterday' },
    ],
    [
      'a second expiry of a session',
      async (stripe) => {
        const { id } = await createProSession(stripe)
        await stripe.checkout.sessions.expire(id)
        return stripe.checkout.sessions.expire(id)
      },
      {
        type: 'StripeInvalidRequestError',
        message: expect.stringContaining('This Checkout Session has a status of "expired"'),
      },
    ],
    [
      'automatic tax for a known customer without an address',
      async (stripe) =>
        createProSession(stripe, {
          customer: await customer(stripe),
          customer_email: undefined,
          automatic_tax: { enabled: true },
        }),
      { statusCode: 400, param: 'customer_update[address]' },
      { taxActive: true },
    ],
    [
      'a plan change to a price the configuration does not offer',
      confirm('price_nope'),
      { statusCode: 400, param: `${confirmAt}[items][0][price]` },
    ],
    [
      'a plan change of an item the subscription does not have',
      confirm('price_starter_monthly', 'si_nope'),
      { ...missing, param: `${confirmAt}[items][0][id]` },
    ],
    [
      'a plan change while the configuration has plan changes off',
      async (stripe) => {
        stack.emulator.setPortalPlanChanges(false)
        return confirm('price_starter_monthly')(stripe)
      },
      { statusCode: 400, param: 'flow_data[type]' },
    ],
  ])('%s', async (_name, call, error, options) => {
    stack = await setupStack(options)
    await expect(call(stack.stripe)).rejects.toMatchObject(error)
  })

  it('answers a missing key with 401 and an unknown URL with 404', async () => {
    stack = await setupStack()
    const missingKey = await fetch(`${stack.emulator.url}/v1/customers`)
    expect(missingKey.status).toBe(401)
    expect(await missingKey.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: expect.stringMatching(/^You did not provide an API key/),
      },
    })
    const unknown = await fetch(`${stack.emulator.url}/v1/nothing_here`, {
      headers: { authorization: 'Bearer sk_test_local_emulator' },
    })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      'Unrecognized request URL (GET: /v1/nothing_here)',
    )
  })
})

describe('idempotency', () => {
  it('replays the first response for the same key, and refuses the key with other parameters', async () => {
    stack = await setupStack()
    const create = (email: string) =>
      stack.stripe.customers.create({ email }, { idempotencyKey: 'key-1' })
    const first = await create('a@example.com')
    const second = await create('a@example.com')
    expect(second.id).toBe(first.id)
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect((await stack.stripe.customers.list()).data).toHaveLength(1)
    await expect(create('b@example.com')).rejects.toMatchObject({
      type: 'StripeIdempotencyError',
      statusCode: 400,
    })
  })
})

it('refuses a portal session after 30 minutes, with the way back to the site', async () => {
  stack = await setupStack()
  const returnUrl = 'http://localhost:5173/dashboard/settings/billing'
  const { url } = await stack.stripe.billingPortal.sessions.create({
    customer: await customer(stack.stripe),
    return_url: returnUrl,
  })
  stack.emulator.advanceClock(31 * 60)
  const response = await fetch(url)
  expect(response.status).toBe(410)
  const html = await response.text()
  expect(html).toContain('This portal session has expired')
  expect(html).toContain(`<a href="${returnUrl}">Return to site</a>`)
})
