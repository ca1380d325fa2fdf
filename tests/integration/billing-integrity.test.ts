// Money, exactly: one subscription per subscriber, every refund, dispute and out-of-band payment.
import { beforeEach, describe, expect, it, vi } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { reconcileProvider } from '../../app/billing/reconcile.server'
import { logger } from '../../app/lib/server/logger.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import {
  adminClient,
  createSignedInUser,
  emulatorStripe,
  rowsWhere,
  stripeSubscriber as subscribedAtStripe,
  subscriptionRowOf,
  testAppForFile,
} from './harness'
import { polarCheckout } from './polar-fixtures'

const app = testAppForFile({ polarInvoiceDelayMs: 0 })
type User = Awaited<ReturnType<typeof createSignedInUser>>

// Each test (and each pair below) is another buyer, all from one loopback address: a fresh budget.
const freshBudgets = () => setRateLimitStore(new MemoryRateLimitStore())
beforeEach(freshBudgets)

const subscriptionRow = async (userId: string) => (await subscriptionRowOf(app, userId))!
const paymentsOf = (user_id: string) =>
  rowsWhere(
    app,
    'payment_history',
    { user_id },
    {
      select:
        'provider_payment_id, provider_charge_id, status, amount, amount_refunded, dispute_status',
      order: 'created_at',
    },
  )
const mailsOf = async (user_id: string, kind: string) =>
  (await rowsWhere(app, 'notification_outbox', { user_id, kind }, { order: 'created_at' })).map(
    (row) => row.data,
  )

/** A Pro subscriber at Stripe whose first invoice is paid (a charge, its PaymentIntent). */
async function stripeSubscriber(user?: User) {
  const subscriber = await subscribedAtStripe(app, user)
  const [payment] = await paymentsOf(subscriber.user.id)
  return { ...subscriber, payment }
}

const PRO = catalogPlan('pro').stripe.priceId
const STARTER = catalogPlan('starter').stripe.priceId

function startStripeCheckout(user: User, price = PRO) {
  return fetch(`${app.url}/api/checkout_sessions`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: user.cookie },
    body: new URLSearchParams({ price_id: price }),
  })
}

/** The Stripe session a checkout's 303 leads to, with its price. */
function landedOn(response: Response) {
  const id = response.headers.get('location')!.split('/').pop()!
  return emulatorStripe(app).checkout.sessions.retrieve(id, { expand: ['line_items'] })
}

describe('two checkouts for one user', () => {
  it('Stripe: one customer, made before the checkout; the same plan again gets its open session, another plan expires it', async () => {
    const user = await createSignedInUser(app)
    const stripe = emulatorStripe(app)
    const tabs = await Promise.all([startStripeCheckout(user), startStripeCheckout(user)])
    expect(tabs.map((tab) => tab.status)).toEqual([303, 303])
    const customers = await stripe.customers.list({ email: user.email })
    expect(customers.data).toHaveLength(1)
    expect(customers.data[0].metadata).toEqual({ user_id: user.id })
    const customer = customers.data[0].id
    const made = (await stripe.checkout.sessions.list({ customer })).data.length
    const [open] = (await stripe.checkout.sessions.list({ customer, status: 'open' })).data
    expect((await startStripeCheckout(user)).headers.get('location')).toBe(open.url)
    expect((await stripe.checkout.sessions.list({ customer })).data).toHaveLength(made)
    // Another plan: a new session, and the first can no longer be paid.
    expect((await landedOn(await startStripeCheckout(user, STARTER))).status).toBe('open')
    expect((await app.stack.stripe.completeCheckout(open.id)).ok).toBe(false)
  })

  it('Stripe: two checkouts sent together each land on their own price, one left payable', async () => {
    const pairs = [...Array(10).fill([STARTER, PRO]), ...Array(10).fill([PRO, PRO])]
    for (const prices of pairs as string[][]) {
      freshBudgets()
      const user = await createSignedInUser(app)
      const tabs = await Promise.all(prices.map((price) => startStripeCheckout(user, price)))
      const sessions = await Promise.all(tabs.map(landedOn))
      expect(sessions.map((session) => session.line_items!.data[0].price!.id)).toEqual(prices)
      if (prices[0] !== prices[1]) continue
      const customer = sessions[0].customer as string
      const open = await emulatorStripe(app).checkout.sessions.list({ customer, status: 'open' })
      expect(open.data).toHaveLength(1)
    }
  })

  it('Polar: the second checkout of a subscribed customer is refused by Polar', async () => {
    const user = await createSignedInUser(app)
    const start = () =>
      polarCheckout(app, { products: catalogPlan('pro').polar.productId }, user.cookie)
    const [first, second] = await Promise.all([start(), start()])
    const ids = [first, second].map((tab) => tab.headers.get('location')!.split('/').pop()!)
    const polar = app.stack.polar
    const checkouts = ids.map((id) => polar.state.checkoutByKey(id)!)
    expect(new Set(checkouts.map((checkout) => checkout.customer_id)).size).toBe(1)
    await polar.completeCheckout(checkouts[0].id)
    await expect(polar.completeCheckout(checkouts[1].id)).rejects.toThrow(
      /already have an active subscription/,
    )
    const subscriptions = [...polar.state.subscriptions.values()].filter(
      (subscription) => subscription.customer_id === checkouts[0].customer_id,
    )
    expect(subscriptions).toHaveLength(1)
  })

  it('a Stripe and a Polar checkout both paid: the second is a duplicate, logged and named', async () => {
    const user = await createSignedInUser(app)
    const stripeTab = await startStripeCheckout(user)
    const polarTab = await polarCheckout(
      app,
      { products: catalogPlan('pro').polar.productId },
      user.cookie,
    )
    const error = vi.spyOn(logger, 'error')
    try {
      const session = stripeTab.headers.get('location')!.split('/').pop()!
      expect((await app.stack.stripe.completeCheckout(session)).ok).toBe(true)
      await app.stack.stripe.idle()
      const secret = polarTab.headers.get('location')!.split('/').pop()!
      const { subscription } = await app.stack.polar.completeCheckout(secret)
      await app.stack.polar.idle()
      const row = await subscriptionRow(user.id)
      expect(row).toMatchObject({
        provider: 'stripe',
        status: 'active',
        polar_subscription_id: null,
      })
      expect(error).toHaveBeenCalledWith({ outcome: 'duplicate_subscription' }, 'polar webhook')
      const check = await reconcileProvider('polar', { check: true })
      expect(check.problems).toContain(
        `user ${user.id}: 2 live subscriptions (${subscription.id}, stripe ${String(row.stripe_subscription_id)})`,
      )
      expect(check.differences.filter((difference) => difference.userId === user.id)).toEqual([])
    } finally {
      error.mockRestore()
    }
  })

  it('a second live subscription made anyway (the dashboard) leaves the row on the first', async () => {
    const { user, customer, subscription } = await stripeSubscriber()
    app.stack.stripe.advanceClock(60)
    const second = await emulatorStripe(app).subscriptions.create({
      customer: customer.id,
      items: [{ price: catalogPlan('starter').stripe.priceId }],
      metadata: { user_id: user.id },
    })
    await app.stack.stripe.idle()
    expect(await subscriptionRow(user.id)).toMatchObject({
      stripe_subscription_id: subscription.id,
      plan_name: 'Pro',
      status: 'active',
    })
    expect((await reconcileProvider('stripe', { check: true })).problems).toContainEqual(
      expect.stringMatching(
        new RegExp(`^user ${user.id}: 2 live subscriptions \\((${subscription.id}|${second.id}), `),
      ),
    )
    // The second one's renewal does not move it either.
    app.stack.stripe.advanceClock(60)
    await app.stack.stripe.advanceSubscription(second.id)
    await app.stack.stripe.idle()
    expect(await subscriptionRow(user.id)).toMatchObject({
      stripe_subscription_id: subscription.id,
    })
  })
})

it('a payment for a deleted account: is logged at error and named by the check until it is canceled', async () => {
  const user = await createSignedInUser(app)
  await adminClient(app).auth.admin.deleteUser(user.id)
  const error = vi.spyOn(logger, 'error')
  try {
    // A checkout paid after the deletion (in the moment before it closed the checkouts).
    const { subscription } = await stripeSubscriber(user)
    expect(error).toHaveBeenCalledWith({ outcome: 'deleted_account' }, 'stripe webhook')
    const named = `subscription ${subscription.id}: live, for the deleted account ${user.id}`
    const check = await reconcileProvider('stripe', { check: true })
    expect(check.problems).toContain(named)
    expect(check.differences.filter((difference) => difference.userId === user.id)).toEqual([])
    await emulatorStripe(app).subscriptions.cancel(subscription.id)
    await app.stack.stripe.idle()
    expect((await reconcileProvider('stripe', { check: true })).problems).not.toContain(named)
  } finally {
    error.mockRestore()
  }
})

describe('refunds and disputes of a Stripe payment', () => {
  it('a partial refund through the API, the rest from the dashboard page: the row and two mails', async () => {
    const { user, payment } = await stripeSubscriber()
    expect(payment).toMatchObject({ status: 'paid', amount: 2900, amount_refunded: 0 })
    const intent = payment.provider_charge_id as string
    await emulatorStripe(app).refunds.create({ payment_intent: intent, amount: 1000 })
    await app.stack.stripe.idle()
    expect(await paymentsOf(user.id)).toMatchObject([
      { status: 'partially_refunded', amount: 2900, amount_refunded: 1000 },
    ])

    const { latest_charge: charge } = await emulatorStripe(app).paymentIntents.retrieve(intent)
    const page = await fetch(`${app.stack.stripe.url}/_emulator/payments`)
    expect(await page.text()).toContain(`/_emulator/charges/${charge as string}/refund`)
    const refund = await fetch(
      `${app.stack.stripe.url}/_emulator/charges/${charge as string}/refund`,
      {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ amount: '' }),
      },
    )
    expect(refund.status).toBe(303)
    await app.stack.stripe.idle()
    expect(await paymentsOf(user.id)).toMatchObject([
      { status: 'refunded', amount: 2900, amount_refunded: 2900 },
    ])
    // Each mail names its own refund, of which payment, and the refunded total.
    expect(await mailsOf(user.id, 'payment_refunded')).toMatchObject([
      { amount: 1000, refunded_total: 1000, paid: 2900, currency: 'usd' },
      { amount: 1900, refunded_total: 2900, paid: 2900, currency: 'usd' },
    ])
  })

  it('a dispute is recorded on the payment row, open and then closed', async () => {
    const { user, payment } = await stripeSubscriber()
    const intent = payment.provider_charge_id as string
    const opened = await app.stack.stripe.trigger('charge.dispute.created', {
      paymentIntent: intent,
    })
    await app.stack.stripe.idle()
    expect(await paymentsOf(user.id)).toMatchObject([
      { status: 'paid', dispute_status: 'needs_response' },
    ])
    await app.stack.stripe.trigger('charge.dispute.closed', {
      dispute: opened.data.object.id as string,
      disputeStatus: 'won',
    })
    await app.stack.stripe.idle()
    expect(await paymentsOf(user.id)).toMatchObject([{ status: 'paid', dispute_status: 'won' }])
  })
})

describe('invoice.paid', () => {
  it('an invoice paid out of band (invoice.paid alone) records the payment', async () => {
    const { user, subscription } = await stripeSubscriber()
    app.stack.stripe.advanceClock(60)
    await app.stack.stripe.advanceSubscription(subscription.id, { fail: true })
    await app.stack.stripe.idle()
    const stripe = emulatorStripe(app)
    const invoiceId = (await stripe.subscriptions.retrieve(subscription.id))
      .latest_invoice as string
    expect((await paymentsOf(user.id))[1]).toMatchObject({
      provider_payment_id: invoiceId,
      status: 'failed',
    })
    const before = app.stack.stripe.events().length
    app.stack.stripe.advanceClock(60)
    await stripe.invoices.pay(invoiceId, { paid_out_of_band: true })
    await app.stack.stripe.idle()
    const sent = app.stack.stripe
      .events()
      .slice(before)
      .map((event) => event.type)
    expect(sent).toContain('invoice.paid')
    expect(sent).not.toContain('invoice.payment_succeeded')
    const payments = await paymentsOf(user.id)
    expect(payments).toHaveLength(2)
    expect(payments[1]).toMatchObject({
      provider_payment_id: invoiceId,
      status: 'paid',
      amount: 2900,
    })
    expect(await subscriptionRow(user.id)).toMatchObject({ status: 'active' })
  })

  it('with invoice.payment_succeeded for the same invoice: both applied, one row', async () => {
    const { user, payment } = await stripeSubscriber()
    const { data: ledger } = await adminClient(app)
      .from('webhook_events')
      .select('event_type')
      .in('event_type', ['invoice.paid', 'invoice.payment_succeeded'])
    expect(new Set((ledger ?? []).map((row) => row.event_type))).toEqual(
      new Set(['invoice.paid', 'invoice.payment_succeeded']),
    )
    expect(await paymentsOf(user.id)).toEqual([payment])
    expect(await mailsOf(user.id, 'payment_receipt')).toHaveLength(1)
  })
})
