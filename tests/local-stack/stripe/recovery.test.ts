import Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { setupStack, subscribeThroughCheckout, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>
let ids: Awaited<ReturnType<typeof subscribeThroughCheckout>>
let invoiceId: string
const returnUrl = 'http://localhost:5173/dashboard/settings/billing'

/** A subscription whose renewal failed: past due, with an open invoice. */
beforeEach(async () => {
  stack = await setupStack()
  ids = await subscribeThroughCheckout(stack.stripe, stack.emulator)
  await stack.emulator.advanceSubscription(ids.subscriptionId, { fail: true })
  await stack.emulator.idle()
  stack.receiver.received.length = 0
  const sub = await stack.stripe.subscriptions.retrieve(ids.subscriptionId)
  expect(sub.status).toBe('past_due')
  invoiceId = sub.latest_invoice as string
  // The subscriber comes back an hour later.
  stack.emulator.advanceClock(3600)
})
afterEach(async () => {
  await stack.teardown()
})

async function received() {
  await stack.emulator.idle()
  const events = verifiedEvents(stack.stripe, stack.receiver)
  stack.receiver.received.length = 0
  return events
}

function postForm(url: string, fields: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  })
}

describe('hosted invoice page', () => {
  it('pays the open invoice of a past-due subscription and sends what Stripe sends', async () => {
    const invoice = await stack.stripe.invoices.retrieve(invoiceId)
    expect(invoice.status).toBe('open')
    // The declined renewal: its payment open, the decline on its PaymentIntent.
    const open = await stack.stripe.invoicePayments.list({ invoice: invoiceId })
    expect(open.data).toMatchObject([{ status: 'open', amount_paid: null }])
    const intent = await stack.stripe.paymentIntents.retrieve(
      open.data[0].payment.payment_intent as string,
    )
    expect(intent).toMatchObject({
      status: 'requires_payment_method',
      amount_received: 0,
      last_payment_error: { code: 'card_declined', type: 'card_error' },
    })
    const pageUrl = invoice.hosted_invoice_url as string
    const html = await (await fetch(pageUrl)).text()
    expect(html).toContain('Pay this invoice')
    expect(html).toContain('Pay $29.00')

    const declined = await postForm(pageUrl, { cardNumber: '4000 0000 0000 0002' })
    expect(declined.status).toBe(402)
    expect(await declined.text()).toContain('Your card was declined.')
    const afterDecline = await received()
    expect(afterDecline.map((event) => event.type)).toEqual(['invoice.payment_failed'])
    expect((await stack.stripe.invoices.retrieve(invoiceId)).status).toBe('open')

    const paid = await postForm(pageUrl, { cardNumber: '4242 4242 4242 4242' })
    expect(paid.status).toBe(303)
    expect(paid.headers.get('location')).toBe(`/invoices/${invoiceId}?paid=1`)
    const events = await received()
    expect(events.map((event) => event.type)).toEqual([
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
    ])
    const updated = events[2]
    expect((updated.data.object as Stripe.Subscription).status).toBe('active')
    expect(updated.data.previous_attributes).toEqual({ status: 'past_due' })
    expect((events[1].data.object as Stripe.Invoice).status).toBe('paid')
    expect((events[1].data.object as Stripe.Invoice).amount_paid).toBe(2900)

    expect((await stack.stripe.subscriptions.retrieve(ids.subscriptionId)).status).toBe('active')
    const payments = await stack.stripe.invoicePayments.list({ invoice: invoiceId })
    expect(payments.data.map((payment) => payment.status)).toEqual(['paid'])
    const thanks = await (await fetch(new URL(paid.headers.get('location')!, pageUrl))).text()
    expect(thanks).toContain('Your payment was received.')
    expect(thanks).not.toContain('Pay this invoice')
    // Nothing left to pay.
    expect((await postForm(pageUrl, { cardNumber: '4242424242424242' })).status).toBe(409)
    expect(await received()).toEqual([])
  })
})

describe('portal payment-method flow', () => {
  it('opens straight on the card form, saves the card and returns where asked', async () => {
    const session = await stack.stripe.billingPortal.sessions.create({
      customer: ids.customerId,
      return_url: returnUrl,
      flow_data: {
        type: 'payment_method_update',
        after_completion: { type: 'redirect', redirect: { return_url: `${returnUrl}?updated=1` } },
      },
    })
    expect(session.flow).toEqual({
      after_completion: {
        hosted_confirmation: null,
        redirect: { return_url: `${returnUrl}?updated=1` },
        type: 'redirect',
      },
      customer_update: null,
      subscription_cancel: null,
      subscription_pause: null,
      subscription_update: null,
      subscription_update_confirm: null,
      type: 'payment_method_update',
    })
    const html = await (await fetch(session.url)).text()
    expect(html).toContain('<h1>Update payment method</h1>')
    expect(html).not.toContain('Cancel at period end')

    const bad = await postForm(session.url, {
      intent: 'update_payment_method',
      cardNumber: '4242 4242 4242 4241',
    })
    expect(bad.status).toBe(402)
    expect(await bad.text()).toContain('Your card number is incorrect.')

    const saved = await postForm(session.url, {
      intent: 'update_payment_method',
      cardNumber: '4242 4242 4242 4242',
    })
    expect(saved.status).toBe(303)
    expect(saved.headers.get('location')).toBe(`${returnUrl}?updated=1`)
    const [event] = await received()
    expect(event.type).toBe('customer.updated')
    const customer = await stack.stripe.customers.retrieve(ids.customerId)
    const pm = (customer as Stripe.Customer).invoice_settings.default_payment_method
    expect(pm).toMatch(/^pm_/)
    expect(event.data.previous_attributes).toEqual({
      invoice_settings: { default_payment_method: null },
    })
    // The flow is done: the session now shows the portal's homepage.
    expect(await (await fetch(session.url)).text()).toContain('Manage your subscription')
  })

  it('a card saved in the portal pays the open invoice on the next attempt', async () => {
    // Parameters it does not model are refused, never ignored.
    await expect(stack.stripe.invoices.pay(invoiceId, { forgive: true })).rejects.toMatchObject({
      statusCode: 400,
      param: 'forgive',
    })
    // Before: the card on file still declines (Stripe's 402 card error).
    const declined = await stack.stripe.invoices.pay(invoiceId).catch((error: unknown) => error)
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError)
    expect(declined).toMatchObject({ statusCode: 402, code: 'card_declined' })
    expect((await received()).map((event) => event.type)).toEqual(['invoice.payment_failed'])

    const session = await stack.stripe.billingPortal.sessions.create({
      customer: ids.customerId,
      return_url: returnUrl,
    })
    const form = await (await fetch(`${session.url}?view=payment_method`)).text()
    expect(form).toContain('Save payment method')
    const saved = await postForm(session.url, {
      intent: 'update_payment_method',
      cardNumber: '4242424242424242',
    })
    expect(saved.headers.get('location')).toBe(`/portal/${session.id}?notice=payment_method`)
    await received()

    const invoice = await stack.stripe.invoices.pay(invoiceId)
    expect(invoice.status).toBe('paid')
    expect((await received()).map((event) => event.type)).toEqual([
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
    ])
    expect((await stack.stripe.subscriptions.retrieve(ids.subscriptionId)).status).toBe('active')
  })
})
