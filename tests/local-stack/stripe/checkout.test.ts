import type Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { createProSession, payOnHostedPage, setupStack, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

beforeEach(async () => {
  stack = await setupStack()
})
afterEach(async () => {
  await stack.teardown()
})

describe('checkout in subscription mode', () => {
  it('creates a session with the parameters the app sends', async () => {
    const session = await createProSession(stack.stripe)
    expect(session.id).toMatch(/^cs_test_/)
    expect(session).toMatchObject({
      object: 'checkout.session',
      mode: 'subscription',
      status: 'open',
      payment_status: 'unpaid',
      customer: null,
      customer_email: 'ada@example.com',
      client_reference_id: 'user-1',
      metadata: { user_id: 'user-1', user_email: 'ada@example.com' },
      success_url: 'http://localhost:5173/success?session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://localhost:5173/pricing?canceled=true',
      amount_total: 2900,
      currency: 'usd',
      automatic_tax: { enabled: false },
      allow_promotion_codes: true,
      subscription: null,
    })
    expect(session.url).toBe(`http://localhost:${stack.emulator.port}/checkout/${session.id}`)
    expect(session.lastResponse.requestId).toMatch(/^req_/)
  })

  it('shows the plan and amount on the hosted page with a way back', async () => {
    const session = await createProSession(stack.stripe)
    const response = await fetch(session.url as string)
    const html = await response.text()
    expect(response.status).toBe(200)
    expect(html).toContain('Subscribe to Pro')
    expect(html).toContain('$29.00')
    expect(html).toContain('<label for="cardNumber">Card number</label>')
    expect(html).toContain('<button type="submit">Subscribe</button>')
    expect(html).toContain('href="http://localhost:5173/pricing?canceled=true">Back</a>')
  })

  it('pays with 4242, redirects to the success URL and delivers signed events in order', async () => {
    const { stripe, emulator, receiver } = stack
    const session = await createProSession(stripe)
    const response = await payOnHostedPage(session.url as string, '4242 4242 4242 4242')
    expect(response.status).toBe(303)
    expect(response.headers.get('location')).toBe(
      `http://localhost:5173/success?session_id=${session.id}`,
    )
    await emulator.idle()

    const completed = await stripe.checkout.sessions.retrieve(session.id)
    expect(completed).toMatchObject({ status: 'complete', payment_status: 'paid', url: null })
    expect(completed.customer).toMatch(/^cus_/)
    expect(completed.subscription).toMatch(/^sub_/)
    expect(completed.customer_details?.email).toBe('ada@example.com')

    const events = verifiedEvents(stripe, receiver)
    // As Stripe: Checkout creates the subscription incomplete and activates it once the
    // first invoice is paid; the session completes last.
    expect(events.map((event) => event.type)).toEqual([
      'customer.created',
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
      'checkout.session.completed',
    ])
    for (const event of events) {
      expect(event).toMatchObject({
        object: 'event',
        api_version: '2026-10-28.endive',
        livemode: false,
      })
      expect(event.id).toMatch(/^evt_/)
    }
    expect(receiver.received[0].headers['user-agent']).toBe(
      'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
    )
    expect(receiver.received[0].headers['content-type']).toBe('application/json; charset=utf-8')

    const created = events[1].data.object as unknown as Record<string, unknown>
    expect(created).toMatchObject({
      object: 'subscription',
      status: 'incomplete',
      customer: completed.customer,
      metadata: { user_id: 'user-1', user_email: 'ada@example.com' },
      cancel_at_period_end: false,
    })
    expect(created).not.toHaveProperty('current_period_end')
    expect(created).not.toHaveProperty('plan')
    expect(events[6].data).toMatchObject({
      object: { id: completed.subscription, status: 'active' },
      previous_attributes: { status: 'incomplete' },
    })
    const sessionEvent = events[7].data.object as unknown as Record<string, unknown>
    expect(sessionEvent).toMatchObject({
      id: session.id,
      status: 'complete',
      subscription: completed.subscription,
    })

    const invoice = events[5].data.object as Stripe.Invoice
    expect(invoice).toMatchObject({
      object: 'invoice',
      status: 'paid',
      amount_paid: 2900,
      currency: 'usd',
      billing_reason: 'subscription_create',
      parent: {
        type: 'subscription_details',
        subscription_details: {
          subscription: completed.subscription,
          metadata: { user_id: 'user-1', user_email: 'ada@example.com' },
        },
      },
    })
    expect(invoice).not.toHaveProperty('payment_intent')
    expect(invoice).not.toHaveProperty('subscription')
    expect(invoice.lines.data[0].parent?.subscription_item_details?.subscription).toBe(
      completed.subscription,
    )
    expect(events[2].data.object).toMatchObject({ status: 'draft' })
    expect(events[3].data.object).toMatchObject({ status: 'open' })

    const invoicePage = await fetch(invoice.hosted_invoice_url as string)
    expect(invoicePage.status).toBe(200)
    expect(await invoicePage.text()).toContain('<strong>paid</strong>')
  })

  it('renders the subscription in the pinned shape, with expand', async () => {
    const { stripe, emulator } = stack
    const session = await createProSession(stripe)
    await payOnHostedPage(session.url as string, '4242424242424242')
    await emulator.idle()
    const completed = await stripe.checkout.sessions.retrieve(session.id, {
      expand: ['subscription'],
    })
    const sub = completed.subscription as Stripe.Subscription
    expect(sub.object).toBe('subscription')
    const expanded = await stripe.subscriptions.retrieve(sub.id, {
      expand: ['items.data.price.product', 'latest_invoice'],
    })
    const item = expanded.items.data[0]
    expect(item.price.id).toBe('price_pro_monthly')
    expect(item.price.product).toMatchObject({ id: 'prod_pro', name: 'Pro' })
    expect(item.current_period_end - item.current_period_start).toBeGreaterThanOrEqual(28 * 86400)
    expect(expanded.latest_invoice).toMatchObject({ object: 'invoice', status: 'paid' })
  })

  it('declines 4000 0000 0000 0002: shows the error, keeps the session open, creates nothing', async () => {
    const { stripe, emulator, receiver } = stack
    const session = await createProSession(stripe)
    const response = await payOnHostedPage(session.url as string, '4000 0000 0000 0002')
    expect(response.status).toBe(402)
    expect(await response.text()).toContain('<p role="alert">Your card was declined.</p>')
    await emulator.idle()
    expect(receiver.received).toHaveLength(0)
    const again = await stripe.checkout.sessions.retrieve(session.id)
    expect(again).toMatchObject({ status: 'open', payment_status: 'unpaid', subscription: null })
    expect((await stripe.subscriptions.list({ status: 'all' })).data).toHaveLength(0)
    const retry = await payOnHostedPage(session.url as string, '4242 4242 4242 4242')
    expect(retry.status).toBe(303)
  })

  it('reuses a known customer and emits no second customer.created', async () => {
    const { stripe, emulator, receiver } = stack
    const customer = await stripe.customers.create({ email: 'known@example.com' })
    const session = await createProSession(stripe, {
      customer: customer.id,
      customer_email: undefined,
    })
    await payOnHostedPage(session.url as string, '4242424242424242')
    await emulator.idle()
    const types = verifiedEvents(stripe, receiver).map((event) => event.type)
    expect(types.filter((type) => type === 'customer.created')).toHaveLength(1)
    expect(types[1]).toBe('customer.subscription.created')
    expect(types.at(-1)).toBe('checkout.session.completed')
    const completed = await stripe.checkout.sessions.retrieve(session.id)
    expect(completed.customer).toBe(customer.id)
    expect((await stripe.customers.list()).data).toHaveLength(1)
  })

  it('refuses to pay a completed session twice', async () => {
    const session = await createProSession(stack.stripe)
    await payOnHostedPage(session.url as string, '4242424242424242')
    const second = await payOnHostedPage(session.url as string, '4242424242424242')
    expect(second.status).toBe(410)
    expect(await second.text()).toContain('This checkout is complete')
    expect((await stack.stripe.subscriptions.list()).data).toHaveLength(1)
  })

  it('expires an open session: no URL, an event, and it can no longer be paid or expired', async () => {
    const { stripe, emulator, receiver } = stack
    const session = await createProSession(stripe)
    const expired = await stripe.checkout.sessions.expire(session.id)
    expect(expired).toMatchObject({ id: session.id, status: 'expired', url: null })
    await emulator.idle()
    const events = await verifiedEvents(stripe, receiver)
    expect(events.map((event) => event.type)).toContain('checkout.session.expired')
    const paid = await payOnHostedPage(session.url as string, '4242424242424242')
    expect(paid.status).toBe(410)
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message: expect.stringContaining('This Checkout Session has a status of "expired"'),
    })
    expect((await stripe.subscriptions.list()).data).toHaveLength(0)
  })
})

describe('automatic tax', () => {
  it('is refused while Stripe Tax is not set up, as on a new account', async () => {
    const { stripe } = stack
    const refused = createProSession(stripe, { automatic_tax: { enabled: true } })
    await expect(refused).rejects.toMatchObject({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      code: 'stripe_tax_inactive',
    })
    await expect(refused).rejects.toThrow(/Stripe Tax has not been activated/)
    // Turned off (or not sent), the session is created.
    const session = await createProSession(stripe, { automatic_tax: { enabled: false } })
    expect(session.automatic_tax).toMatchObject({ enabled: false })
  })

  it('is accepted once Tax is set up, and then needs an address for a known customer', async () => {
    const taxed = await setupStack({ taxActive: true })
    try {
      const { stripe, emulator } = taxed
      const session = await createProSession(stripe, { automatic_tax: { enabled: true } })
      expect(session.automatic_tax).toMatchObject({ enabled: true })
      const customer = await stripe.customers.create({ email: 'known@example.com' })
      const known = { customer: customer.id, customer_email: undefined }
      await expect(
        createProSession(stripe, { ...known, automatic_tax: { enabled: true } }),
      ).rejects.toMatchObject({ statusCode: 400, param: 'customer_update[address]' })
      const withAddress = await createProSession(stripe, {
        ...known,
        automatic_tax: { enabled: true },
        customer_update: { address: 'auto' },
      })
      const paid = await payOnHostedPage(withAddress.url as string, '4242424242424242')
      expect(paid.status).toBe(303)
      await emulator.idle()
    } finally {
      await taxed.teardown()
    }
  })
})
