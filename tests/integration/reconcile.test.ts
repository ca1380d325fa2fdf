import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'

import { describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { reconcileProvider } from '../../app/billing/reconcile.server'
import { subscribeAtStripe } from './accounts'
import {
  createSignedInUser,
  emulatorStripe,
  rowsWhere,
  subscriptionRowOf,
  testAppForFile,
  withStripeWebhooksSwallowed,
} from './harness'
import { emulatorPolar, paidEmulatorCheckout } from './polar-fixtures'

const app = testAppForFile({ polarInvoiceDelayMs: 0 })

const row = (userId: string) => subscriptionRowOf(app, userId)

it('reconciliation after Polar disabled the endpoint: applies the state an event lost while the endpoint was disabled would have written', async () => {
  const polar = app.stack.polar
  const { id: userId } = await createSignedInUser(app)
  const paid = await paidEmulatorCheckout(app, userId)
  await polar.idle()
  expect(await row(userId)).toMatchObject({ status: 'active', cancel_at_period_end: false })
  const subscriptionId = paid.subscription.id
  // Every event delivered: nothing differs.
  const inSync = await reconcileProvider('polar', { check: true })
  expect(inSync.differences.filter((d) => d.userId === userId)).toEqual([])

  // A database outage: every event fails until Polar gives up on ten in a row and
  // disables the endpoint.
  app.setDatabaseDown(true)
  for (let i = 0; i < 5; i++) {
    await polar.trigger('cancel', { subscription_id: subscriptionId })
    await polar.trigger('uncancel', { subscription_id: subscriptionId })
  }
  await polar.idle()
  app.setDatabaseDown(false)
  expect(polar.endpoint().enabled).toBe(false)
  expect(polar.deliveries().filter((d) => d.status === 'failed')).toHaveLength(10)

  // The subscriber cancels while the endpoint is disabled: Polar creates no event for it.
  const before = polar.deliveries().length
  await polar.trigger('cancel', { subscription_id: subscriptionId })
  await polar.idle()
  expect(polar.deliveries()).toHaveLength(before)
  expect(await row(userId)).toMatchObject({ cancel_at_period_end: false })

  // The check shows the difference and the last applied event, and changes nothing.
  const check = await reconcileProvider('polar', { check: true })
  const mine = check.differences.filter((d) => d.userId === userId)
  expect(mine).toEqual([
    {
      userId,
      subscriptionId,
      changes: expect.arrayContaining([
        expect.stringMatching(/^cancel_at_period_end: false → true$/),
      ]),
    },
  ])
  expect(check.lastEvent).toMatchObject({
    type: expect.stringMatching(/^(subscription|order|checkout|customer)\./),
  })
  expect(await row(userId)).toMatchObject({ cancel_at_period_end: false })

  // Reconciliation applies it through the ledger.
  const applied = await reconcileProvider('polar')
  expect(applied.differences.find((d) => d.userId === userId)?.result).toBe('applied')
  expect(await row(userId)).toMatchObject({
    status: 'active',
    cancel_at_period_end: true,
    polar_subscription_id: subscriptionId,
  })
  expect(
    (await reconcileProvider('polar', { check: true })).differences.filter(
      (d) => d.userId === userId,
    ),
  ).toEqual([])

  // Re-enabled, a re-sent old event (older than the reconciliation) changes nothing.
  polar.setEndpointEnabled(true)
  const lastUncancel = polar
    .deliveries()
    .filter((d) => d.type === 'subscription.uncanceled')
    .at(-1)!
  polar.resend(lastUncancel.id)
  await polar.idle()
  expect(polar.deliveries().find((d) => d.id === lastUncancel.id)?.status).toBe('succeeded')
  expect(await row(userId)).toMatchObject({ cancel_at_period_end: true })
})

it('reconciliation of Stripe: applies a subscription whose events never reached the app', async () => {
  const user = await createSignedInUser(app)
  const userId = user.id
  await withStripeWebhooksSwallowed(app, () => subscribeAtStripe(emulatorStripe(app), user))
  expect(await row(userId)).toBeNull()

  const report = await reconcileProvider('stripe')
  expect(report.differences.find((d) => d.userId === userId)).toMatchObject({
    changes: ['no row'],
    result: 'applied',
  })
  expect(await row(userId)).toMatchObject({
    provider: 'stripe',
    status: 'active',
    plan_name: 'Pro',
  })
})

const payments = async (user_id: string) =>
  (await rowsWhere(app, 'payment_history', { user_id })).map((row) => row.provider_payment_id)

/** A live subscription whose first payment reached the app; a renewal the app never hears of. */
const RENEWALS = {
  stripe: {
    async subscribe(user: { id: string; email: string }) {
      const { subscription } = await subscribeAtStripe(emulatorStripe(app), user)
      await app.stack.stripe.idle()
      return subscription.id
    },
    async renewUnheard(subscriptionId: string) {
      app.stack.stripe.setWebhookEndpointDisabled(true)
      await app.stack.stripe.advanceSubscription(subscriptionId)
      app.stack.stripe.setWebhookEndpointDisabled(false)
      const invoices = await emulatorStripe(app).invoices.list({ subscription: subscriptionId })
      return invoices.data[0].id
    },
  },
  polar: {
    async subscribe(user: { id: string }) {
      app.stack.polar.setEndpointEnabled(true)
      const paid = await paidEmulatorCheckout(app, user.id)
      await app.stack.polar.idle()
      return paid.subscription.id
    },
    async renewUnheard(subscriptionId: string) {
      app.stack.polar.setEndpointEnabled(false)
      const renewal = await app.stack.polar.trigger('renewal', { subscription_id: subscriptionId })
      await app.stack.polar.idle()
      app.stack.polar.setEndpointEnabled(true)
      return renewal.order!.id
    },
  },
}

describe('changed-only reconciliation', () => {
  it.each(['stripe', 'polar'] as const)(
    'finds a %s renewal whose events were lost: the subscription and its payment',
    async (provider) => {
      const user = await createSignedInUser(app)
      const mine = (report: { differences: { userId: string }[] }) =>
        report.differences.filter((difference) => difference.userId === user.id)
      const subscriptionId = await RENEWALS[provider].subscribe(user)
      const before = await row(user.id)
      expect(await payments(user.id)).toHaveLength(1)
      // Every event delivered: nothing differs.
      expect(mine(await reconcileProvider(provider, { check: true }))).toEqual([])

      const renewal = await RENEWALS[provider].renewUnheard(subscriptionId)
      expect(await payments(user.id)).toHaveLength(1)
      expect(await row(user.id)).toMatchObject({ current_period_end: before?.current_period_end })

      const check = await reconcileProvider(provider, { check: true })
      expect(check.since).toEqual(expect.any(String))
      expect(mine(check)).toMatchObject([
        { changes: expect.arrayContaining([expect.stringMatching(/^current_period_end: /)]) },
      ])
      expect(check.missingPayments).toContainEqual({ id: renewal, result: undefined })

      const applied = await reconcileProvider(provider)
      expect(mine(applied)).toMatchObject([{ result: 'applied' }])
      expect(applied.missingPayments).toContainEqual({ id: renewal, result: 'applied' })
      expect(await payments(user.id)).toContain(renewal)
      const again = await reconcileProvider(provider, { check: true })
      expect([again.missingPayments, mine(again)]).toEqual([[], []])
    },
  )
})

/** Runs `npm run billing:reconcile -- <args>`; a non-zero exit is returned, not thrown. */
function reconcileCli(...args: string[]) {
  return promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'app/billing/reconcile.cli.ts', ...args],
    { env: { ...process.env, NODE_ENV: 'test' as const }, timeout: 60_000 },
  ).catch((error: { code: number; stdout: string; stderr: string }) => error)
}

describe('npm run billing:reconcile', () => {
  it('prints the last event per provider and exits 0 when nothing differs, 1 on bad arguments', async () => {
    await reconcileProvider('stripe')
    await reconcileProvider('polar')
    const ok = await reconcileCli('--check')
    expect(ok).not.toHaveProperty('code')
    const { stdout } = ok
    expect(stdout).toMatch(/^stripe: last event in the ledger /m)
    expect(stdout).toMatch(/^polar: last event in the ledger (subscription|order)\./m)
    expect(stdout).toMatch(
      /^polar: changed since \S+: \d+ subscriptions, \d+ users, 0 differ, 0 payments missing$/m,
    )
    expect(await reconcileCli('--provider', 'paypal')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('paypal is not one of BILLING_PROVIDERS'),
    })
  })

  it('says where it connects, and prints what went wrong when the database cannot answer', async () => {
    app.setDatabaseDown(true)
    const failed = await reconcileCli('--check').finally(() => app.setDatabaseDown(false))
    expect(failed).toMatchObject({ code: 1 })
    expect(failed.stdout).toContain(`test: Supabase at ${app.stack.env.SUPABASE_URL}`)
    expect(failed.stdout).toContain(`stripe: ${app.stack.env.STRIPE_API_URL}\n`)
    expect(failed.stderr).toContain('Reconciliation failed: We cannot reach our database')
  })

  it('exits 2 for a live Polar subscription that matches no user, and names it', async () => {
    // Bought without the app (no user in its metadata, a customer bound to nobody).
    const checkout = await emulatorPolar(app).checkouts.create({
      products: [catalogPlan('pro').polar.productId],
      customer_email: `stranger-${randomUUID()}@example.com`,
      success_url: `${app.url}/success?checkout_id={CHECKOUT_ID}`,
    })
    const { subscription } = await app.stack.polar.completeCheckout(checkout.id)
    await app.stack.polar.idle()
    expect(await reconcileCli('--check', '--provider', 'polar')).toMatchObject({
      code: 2,
      stdout: expect.stringContaining(
        `polar: subscription ${subscription.id}: live, matches no user`,
      ),
    })
  })
})
