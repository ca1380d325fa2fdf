import { beforeAll, beforeEach, describe, expect, it } from 'vitest'

import { MAX_LOOKUPS, resetDeferredLookupsForTests } from '~/billing/deferred-lookups.server'

import * as billing from '../../app/routes/dashboard.settings.billing'
import { callRoute } from './auth-support'
import {
  adminClient,
  createSignedInUser,
  emulatorStripe,
  ledgerCount,
  polarSubscriber,
  rowsWhere,
  testAppForFile,
} from './harness'
import { emulatorPolar, paidEmulatorCheckout, polarEvent, postPolarEvent } from './polar-fixtures'
import { pageGet } from './settings-support'

// A provider call not needed to record an event never blocks it: the value is filled in later.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })

const OK = { status: 200, body: { received: true } }
const FOREVER = 1000
type User = Awaited<ReturnType<typeof createSignedInUser>>
type Overview = Awaited<
  ReturnType<typeof import('../../app/subscriptions/billing-overview.server').getBillingOverview>
>

const paymentRows = (provider_payment_id: string) =>
  rowsWhere(app, 'payment_history', { provider_payment_id })
const openBillingPage = (user: User) =>
  callRoute<Overview>(billing.loader, pageGet(`${app.url}/dashboard/settings/billing`, user.cookie))

/** Polar answers every invoice call (POST and GET) of the order with `status`. */
function polarInvoiceFails(orderId: string, status: 404 | 500) {
  app.stack.polar.addFault({
    path: `/v1/orders/${orderId}/invoice`,
    status,
    count: FOREVER,
    ...(status === 404 ? { body: { error: 'ResourceNotFound', detail: 'Not found' } } : {}),
  })
}

beforeAll(() => {
  // Only the hand-signed Polar events of these tests reach the app.
  app.stack.polar.setWebhookUrl(undefined)
  // One user pays several orders (several subscriptions), as an organization may allow.
  app.stack.polar.setSubscriptionSettings({ allow_multiple_subscriptions: true })
})
beforeEach(() => {
  app.stack.polar.clearFaults()
  app.stack.stripe.clearFaults()
  resetDeferredLookupsForTests()
})

describe('Polar order.paid whose invoice cannot be fetched', () => {
  it.each([404, 500] as const)(
    'invoice calls answering %i forever: 200, the payment is recorded without a URL, and the billing page fills it in',
    async (status) => {
      const { user, order } = await polarSubscriber(app)
      polarInvoiceFails(order.id, status)

      const event = polarEvent('order.paid', order)
      const first = await postPolarEvent(app.url, event)
      expect(first).toMatchObject(OK)
      expect(await ledgerCount(app, first.id)).toBe(1)
      expect(await paymentRows(order.id)).toMatchObject([
        { user_id: user.id, status: 'succeeded', amount: order.total_amount, invoice_url: null },
      ])
      // Polar's resend changes nothing and is answered 200 as well.
      expect(await postPolarEvent(app.url, event, { id: first.id })).toMatchObject(OK)
      expect(await paymentRows(order.id)).toHaveLength(1)

      // While Polar still fails, the billing page opens and shows the payment without a link.
      const stillFailing = await openBillingPage(user)
      expect(stillFailing.status).toBe(200)
      expect(stillFailing.data.payments).toMatchObject([{ invoice_url: null }])

      // Polar can produce the invoice again: the next view (after the cool-down) fills it.
      app.stack.polar.clearFaults()
      resetDeferredLookupsForTests()
      const url = `${app.stack.polar.url}/invoices/${order.id}`
      const page = await openBillingPage(user)
      expect(page.status).toBe(200)
      expect(page.data.payments).toMatchObject([{ invoice_url: url }])
      expect(await paymentRows(order.id)).toMatchObject([{ invoice_url: url }])
    },
  )

  it('order.updated with is_invoice_generated fills in the URL of a payment recorded without it', async () => {
    const { order } = await polarSubscriber(app)
    polarInvoiceFails(order.id, 500)
    expect(await postPolarEvent(app.url, polarEvent('order.paid', order))).toMatchObject(OK)
    expect(await paymentRows(order.id)).toMatchObject([{ invoice_url: null }])

    // Polar still failing while order.updated comes: 200 too, the URL stays empty.
    const generated = { ...order, is_invoice_generated: true }
    const updated = await postPolarEvent(app.url, polarEvent('order.updated', generated))
    expect(updated).toMatchObject(OK)
    expect(await ledgerCount(app, updated.id)).toBe(1)
    expect(await paymentRows(order.id)).toMatchObject([{ invoice_url: null }])

    // Polar recovers and generates the invoice (someone asked for it), then tells us.
    app.stack.polar.clearFaults()
    await emulatorPolar(app).orders.generateInvoice(order.id)
    // An order.updated that does not say the invoice exists asks Polar nothing.
    expect(await postPolarEvent(app.url, polarEvent('order.updated', order))).toMatchObject(OK)
    expect(await paymentRows(order.id)).toMatchObject([{ invoice_url: null }])
    expect(await postPolarEvent(app.url, polarEvent('order.updated', generated))).toMatchObject(OK)
    expect(await paymentRows(order.id)).toMatchObject([
      { invoice_url: `${app.stack.polar.url}/invoices/${order.id}` },
    ])
  })

  it('the billing page looks up a bounded number of missing invoices per view, and a slow Polar does not hold it', async () => {
    const user = await createSignedInUser(app)
    const orders = []
    for (let index = 0; index < MAX_LOOKUPS + 2; index += 1) {
      const { order, subscription } = await paidEmulatorCheckout(app, user.id)
      if (index === 0)
        expect(
          await postPolarEvent(app.url, polarEvent('subscription.created', subscription)),
        ).toMatchObject(OK)
      orders.push(order)
    }
    const { error } = await adminClient(app)
      .from('payment_history')
      .insert(
        orders.map((order, index) => ({
          user_id: user.id,
          provider: 'polar',
          provider_payment_id: order.id,
          amount: order.total_amount,
          currency: 'usd',
          status: 'succeeded',
          description: 'Pro payment',
          invoice_url: null,
          created_at: new Date(Date.UTC(2026, 10, 1 + index)).toISOString(),
        })),
      )
    if (error) throw new Error(error.message)
    const filled = async () =>
      (await rowsWhere(app, 'payment_history', { user_id: user.id })).filter(
        (payment) => payment.invoice_url !== null,
      ).length

    expect((await openBillingPage(user)).status).toBe(200)
    expect(await filled()).toBe(MAX_LOOKUPS)
    expect((await openBillingPage(user)).status).toBe(200)
    expect(await filled()).toBe(orders.length)

    // A Polar that hangs: the page still answers, within its deadline.
    const { error: clearError } = await adminClient(app)
      .from('payment_history')
      .update({ invoice_url: null })
      .eq('user_id', user.id)
    if (clearError) throw new Error(clearError.message)
    app.stack.polar.addFault({ path: '^/v1/orders/', delayMs: 10_000, count: FOREVER })
    const started = Date.now()
    const page = await openBillingPage(user)
    expect(page.status).toBe(200)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(page.data.payments.every((payment) => payment.invoice_url === null)).toBe(true)
  })
})

it('Stripe invoice.payment_succeeded whose invoice payments cannot be read: answers 200 and records the payment without its PaymentIntent; the billing page fills it in', async () => {
  const user = await createSignedInUser(app)
  const payments = () => rowsWhere(app, 'payment_history', { user_id: user.id })
  app.stack.stripe.injectFault({
    method: 'GET',
    path: '/v1/invoice_payments',
    status: 500,
    count: FOREVER,
  })
  const created = await app.stack.stripe.trigger('customer.subscription.created', {
    metadata: { user_id: user.id },
  })
  await app.stack.stripe.idle()
  const invoiceId = (created.data.object as { latest_invoice: string }).latest_invoice
  const succeeded = app.stack.stripe
    .events()
    .find(
      (event) =>
        event.type === 'invoice.payment_succeeded' &&
        (event.data.object as { id: string }).id === invoiceId,
    )
  if (!succeeded) throw new Error('no invoice.payment_succeeded for the new subscription')
  const attempts = app.stack.stripe.deliveries().filter((entry) => entry.eventId === succeeded.id)
  expect(attempts.map((entry) => entry.status)).toEqual([200])
  expect(await ledgerCount(app, succeeded.id)).toBe(1)
  expect(await payments()).toMatchObject([
    { provider_payment_id: invoiceId, status: 'paid', provider_charge_id: null },
  ])

  expect((await openBillingPage(user)).status).toBe(200)
  expect(await payments()).toMatchObject([{ provider_charge_id: null }])

  app.stack.stripe.clearFaults()
  resetDeferredLookupsForTests()
  const page = await openBillingPage(user)
  expect(page.status).toBe(200)
  const [invoicePayment] = (await emulatorStripe(app).invoicePayments.list({ invoice: invoiceId }))
    .data
  expect(invoicePayment.payment.payment_intent).toMatch(/^pi_/)
  expect(await payments()).toMatchObject([
    {
      provider_payment_id: invoiceId,
      provider_charge_id: invoicePayment.payment.payment_intent,
      invoice_url: page.data.payments[0].invoice_url,
    },
  ])
})
