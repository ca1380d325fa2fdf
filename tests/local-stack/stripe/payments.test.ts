import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { createProSession, setupStack, subscribeThroughCheckout } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>

beforeEach(async () => {
  stack = await setupStack()
})
afterEach(async () => {
  await stack.teardown()
})

describe('checkout line items', () => {
  it('lists them as a paginated Stripe list of items', async () => {
    const session = await createProSession(stack.stripe, {
      line_items: [
        { price: 'price_pro_monthly', quantity: 1 },
        { price: 'price_starter_monthly', quantity: 2 },
      ],
    })
    const all = await stack.stripe.checkout.sessions.listLineItems(session.id)
    expect(all).toMatchObject({
      object: 'list',
      has_more: false,
      url: `/v1/checkout/sessions/${session.id}/line_items`,
    })
    expect(all.data.map((item) => [item.object, item.price?.id, item.quantity])).toEqual([
      ['item', 'price_pro_monthly', 1],
      ['item', 'price_starter_monthly', 2],
    ])
    expect(all.data[1]).toMatchObject({
      id: expect.stringMatching(/^li_/),
      description: 'Starter',
      currency: 'usd',
      amount_subtotal: 1800,
      amount_total: 1800,
      amount_discount: 0,
      amount_tax: 0,
      price: { object: 'price', unit_amount: 900, product: 'prod_starter' },
    })
    const first = await stack.stripe.checkout.sessions.listLineItems(session.id, { limit: 1 })
    expect(first.has_more).toBe(true)
    expect(first.data.map((item) => item.id)).toEqual([all.data[0].id])
    const next = await stack.stripe.checkout.sessions.listLineItems(session.id, {
      starting_after: all.data[0].id,
    })
    expect(next.data.map((item) => item.id)).toEqual([all.data[1].id])
  })

  it('includes them on retrieve only with expand[]=line_items, nested expands too', async () => {
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
    const again = await stack.stripe.checkout.sessions.listLineItems(session.id)
    expect(again.data[0].price?.product).toBe('prod_pro')
  })

  it('answers an unknown session with 404', async () => {
    await expect(
      stack.stripe.checkout.sessions.listLineItems('cs_test_nope'),
    ).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      message: "No such checkout.session: 'cs_test_nope'",
    })
  })
})

describe('invoice payments', () => {
  it('links a paid invoice to its succeeded PaymentIntent, never on the invoice itself', async () => {
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
    expect(await stack.stripe.invoicePayments.retrieve(payment.id)).toEqual(payment)
    const byIntent = await stack.stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: intentId },
    })
    expect(byIntent.data.map((entry) => entry.id)).toEqual([payment.id])
  })

  it('leaves a declined renewal open with the decline on its PaymentIntent', async () => {
    const { subscriptionId } = await subscribeThroughCheckout(stack.stripe, stack.emulator)
    await stack.emulator.advanceSubscription(subscriptionId, { fail: true })
    const subscription = await stack.stripe.subscriptions.retrieve(subscriptionId)
    const open = await stack.stripe.invoicePayments.list({
      invoice: subscription.latest_invoice as string,
    })
    expect(open.data).toMatchObject([{ status: 'open', amount_paid: null }])
    const intent = await stack.stripe.paymentIntents.retrieve(
      open.data[0].payment.payment_intent as string,
    )
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      amount_received: 0,
      last_payment_error: { code: 'card_declined', type: 'card_error' },
    })
    const paidOnly = await stack.stripe.invoicePayments.list({ status: 'paid' })
    expect(paidOnly.data).toHaveLength(1)
  })

  it('refuses an unknown invoice and a bad status in Stripe shape', async () => {
    await expect(stack.stripe.invoicePayments.list({ invoice: 'in_nope' })).rejects.toMatchObject({
      statusCode: 400,
      code: 'resource_missing',
      param: 'invoice',
      message: "No such invoice: 'in_nope'",
    })
    await expect(stack.stripe.invoicePayments.list({ status: 'late' })).rejects.toMatchObject({
      statusCode: 400,
      param: 'status',
    })
    await expect(stack.stripe.paymentIntents.retrieve('pi_nope')).rejects.toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
    })
  })
})
