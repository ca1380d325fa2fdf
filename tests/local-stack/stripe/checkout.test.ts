import type Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import {
  createProSession,
  payOnHostedPage,
  setupStack,
  subscribeThroughCheckout,
  verifiedEvents,
} from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

beforeEach(async () => {
  stack = await setupStack()
})
afterEach(async () => {
  await stack.teardown()
})

describe('checkout in subscription mode', () => {
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
    // Paid once: it cannot be paid again.
    const second = await payOnHostedPage(session.url as string, '4242424242424242')
    expect(second.status).toBe(410)
    expect(await second.text()).toContain('This checkout is complete')
    expect((await stripe.subscriptions.list()).data).toHaveLength(1)
  })

  it('expires an open session: no URL, an event, and it can no longer be paid or expired', async () => {
    const { stripe, emulator, receiver } = stack
    const session = await createProSession(stripe)
    const expired = await stripe.checkout.sessions.expire(session.id)
    expect(expired).toMatchObject({ id: session.id, status: 'expired', url: null })
    await emulator.idle()
    const events = verifiedEvents(stripe, receiver)
    expect(events.map((event) => event.type)).toContain('checkout.session.expired')
    const paid = await payOnHostedPage(session.url as string, '4242424242424242')
    expect(paid.status).toBe(410)
    await expect(stripe.checkout.sessions.expire(session.id)).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      message: expect.stringContaining('This Checkout Session has a status of "expired"'),
    })
    expect((await stripe.subscriptions.list()).data).toHaveLength(0)
  })

  it('includes line items on retrieve only with expand[]=line_items, nested expands too', async () => {
    const session = await createProSession(stack.stripe)
    const plain = await stack.stripe.checkout.sessions.retrieve(session.id)
    expect(plain).not.toHaveProperty('line_items')
    const expanded = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items.data.price.product'],
    })
    expect(expanded.line_items).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/checkout/sessions/${session.id}/line_items`,
      data: [{ quantity: 1, price: { id: 'price_pro_monthly', product: { name: 'Pro' } } }],
    })
    const again = await stack.stripe.checkout.sessions.retrieve(session.id, {
      expand: ['line_items'],
    })
    expect(again.line_items?.data[0].price?.product).toBe('prod_pro')
  })

  it('accepts automatic tax once Tax is set up, and then needs an address for a known customer', async () => {
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

describe('invoice payments', () => {
  it('link a paid invoice to its succeeded PaymentIntent, never on the invoice itself', async () => {
    const { subscriptionId } = await subscribeThroughCheckout(stack.stripe, stack.emulator)
    const subscription = await stack.stripe.subscriptions.retrieve(subscriptionId)
    const invoiceId = subscription.latest_invoice as string
    const invoice = await stack.stripe.invoices.retrieve(invoiceId)
    expect(invoice).not.toHaveProperty('payments')
    expect(invoice).not.toHaveProperty('payment_intent')

    const payments = await stack.stripe.invoicePayments.list({ invoice: invoiceId })
    expect(payments.data).toHaveLength(1)
    const [payment] = payments.data
    expect(payment).toMatchObject({
      id: expect.stringMatching(/^inpay_/),
      object: 'invoice_payment',
      invoice: invoiceId,
      is_default: true,
      status: 'paid',
      amount_paid: 2900,
      amount_requested: 2900,
      currency: 'usd',
      payment: { type: 'payment_intent', payment_intent: expect.stringMatching(/^pi_/) },
      status_transitions: { paid_at: expect.any(Number), canceled_at: null },
    })
    const intentId = payment.payment.payment_intent as string
    expect(await stack.stripe.paymentIntents.retrieve(intentId)).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2900,
      amount_received: 2900,
      customer: subscription.customer,
      payment_method: subscription.default_payment_method,
      latest_charge: expect.stringMatching(/^ch_/),
    })
    const expanded = await stack.stripe.invoices.retrieve(invoiceId, {
      expand: ['payments.data.payment.payment_intent'],
    })
    expect(expanded.payments).toMatchObject({
      object: 'list',
      data: [
        { id: payment.id, payment: { payment_intent: { id: intentId, status: 'succeeded' } } },
      ],
    })
  })
})
