import { describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import * as billing from '../../app/routes/dashboard.settings.billing'
import * as changePlan from '../../app/routes/dashboard.settings.billing_.change-plan'
import { setClockOffset } from '../local-stack/polar'
import { callRoute } from './auth-support'
import { createSignedInUser, subscriptionRowOf, testAppForFile } from './harness'
import { paidEmulatorCheckout } from './polar-fixtures'
import { formPost, pageGet } from './settings-support'

// A Polar subscriber's "Change to Starter": the page's price (as Polar prorates) and the change.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })
const DAY = 24 * 60 * 60 * 1000

/** A Pro subscriber, half way through a 30-day period at Polar. */
async function proSubscriber() {
  const user = await createSignedInUser(app)
  const paid = await paidEmulatorCheckout(app, user.id)
  await app.stack.polar.idle()
  const record = app.stack.polar.state.subscriptions.get(paid.subscription.id)!
  record.current_period_start = new Date(Date.now() - 15 * DAY).toISOString()
  record.current_period_end = new Date(Date.now() + 15 * DAY).toISOString()
  return { user, subscriptionId: paid.subscription.id }
}

const row = async (userId: string) => (await subscriptionRowOf(app, userId))!

const page = (cookie: string, plan = 'starter') =>
  callRoute<{
    kind: string
    message?: string
    offer?: {
      current: { name: string }
      target: { name: string }
      preview: { credit: number; charge: number; nextInvoiceAmount: number; carriedCredit: number }
    }
  }>(
    changePlan.loader,
    pageGet(`${app.url}/dashboard/settings/billing/change-plan?plan=${plan}`, cookie),
  )

function confirm(cookie: string, plan = 'starter') {
  const request = formPost(`${app.url}/dashboard/settings/billing/change-plan`, cookie, { plan })
  request.headers.set('Origin', app.url)
  return callRoute<{ error?: string }>(changePlan.action, request)
}

describe('Change to Starter for a Polar subscriber', () => {
  it('shows what the change costs, then changes the plan at Polar; the next invoice is what the page said', async () => {
    const { user, subscriptionId } = await proSubscriber()
    const billingPage = await callRoute<{ changes: { key: string; name: string }[] }>(
      billing.loader,
      pageGet(`${app.url}/dashboard/settings/billing`, user.cookie),
    )
    expect(billingPage.data.changes).toEqual([{ key: 'starter', name: 'Starter' }])

    const offer = await page(user.cookie)
    expect(offer.status).toBe(200)
    expect(offer.data).toMatchObject({
      kind: 'offer',
      offer: { current: { name: 'Pro' }, target: { name: 'Starter' } },
    })
    // Half the period left: a credit of 1450 for Pro, 450 for Starter; the next invoice is
    // 900 + 450 − 1450 < 0, so nothing, and 100 of credit is carried after it.
    const preview = offer.data.offer!.preview
    expect(Math.abs(preview.credit - 1450)).toBeLessThanOrEqual(1)
    expect(Math.abs(preview.charge - 450)).toBeLessThanOrEqual(1)
    expect(preview.nextInvoiceAmount).toBe(0)
    expect(Math.abs(preview.carriedCredit - 100)).toBeLessThanOrEqual(1)

    const answer = await confirm(user.cookie)
    expect(answer).toMatchObject({
      status: 303,
      location: '/dashboard/settings/billing?changed=starter',
    })
    const atPolar = app.stack.polar.state.subscriptions.get(subscriptionId)!
    expect(atPolar.product_id).toBe(catalogPlan('starter').polar.productId)
    // The row shows the new plan at once (Polar's answer through the ledger)…
    expect(await row(user.id)).toMatchObject({
      plan_name: 'Starter',
      polar_product_id: catalogPlan('starter').polar.productId,
      status: 'active',
    })
    // …and Polar's subscription.updated, delivered afterwards, leaves it so.
    await app.stack.polar.idle()
    expect(
      app.stack.polar
        .deliveries()
        .filter((d) => d.type === 'subscription.updated')
        .at(-1)?.status,
    ).toBe('succeeded')
    expect(await row(user.id)).toMatchObject({ plan_name: 'Starter' })

    // Polar bills the next period as the page said (prorate: nothing was charged now).
    expect(app.stack.polar.state.ordersOf(subscriptionId).map((o) => o.billing_reason)).toEqual([
      'subscription_create',
    ])
    const renewal = await app.stack.polar.trigger('renewal', { subscription_id: subscriptionId })
    expect(renewal.order).toMatchObject({ net_amount: preview.nextInvoiceAmount })
    await app.stack.polar.idle()
  })

  it("with this server's clock an hour ahead of Polar's, Polar's own later events still apply", async () => {
    setClockOffset(-60 * 60 * 1000)
    try {
      const { user, subscriptionId } = await proSubscriber()
      await app.stack.polar.idle()
      expect((await confirm(user.cookie)).status).toBe(303)
      await app.stack.polar.idle()
      expect(await row(user.id)).toMatchObject({
        plan_name: 'Starter',
        cancel_at_period_end: false,
      })
      // The subscriber cancels in Polar's portal a moment later (Polar's time).
      await app.stack.polar.trigger('cancel', { subscription_id: subscriptionId })
      await app.stack.polar.idle()
      expect(await row(user.id)).toMatchObject({ plan_name: 'Starter', cancel_at_period_end: true })
    } finally {
      setClockOffset(0)
    }
  })

  it('explains why when the change is not possible, and changes nothing', async () => {
    const { user, subscriptionId } = await proSubscriber()
    expect((await page(user.cookie, 'pro')).data).toMatchObject({
      kind: 'unavailable',
      message: 'You are already on the Pro plan.',
    })
    expect((await page(user.cookie, 'enterprise')).data).toMatchObject({ kind: 'unavailable' })

    await app.stack.polar.trigger('cancel', { subscription_id: subscriptionId })
    await app.stack.polar.idle()
    expect((await page(user.cookie)).data).toMatchObject({
      kind: 'unavailable',
      message: 'Your subscription is set to cancel. Resume it first, then change your plan.',
    })
    const refused = await confirm(user.cookie)
    expect(refused.status).toBe(409)
    expect(app.stack.polar.state.subscriptions.get(subscriptionId)!.product_id).toBe(
      catalogPlan('pro').polar.productId,
    )

    const noPolar = await createSignedInUser(app)
    expect((await page(noPolar.cookie)).data).toMatchObject({
      kind: 'unavailable',
      message: 'You do not have a subscription whose plan can be changed here.',
    })
  })

  it('answers a Polar failure with a clear message and no change', async () => {
    const { user, subscriptionId } = await proSubscriber()
    app.stack.polar.addFault({ method: 'PATCH', path: '/v1/subscriptions', status: 502, count: 1 })
    const failed = await confirm(user.cookie)
    expect(failed.status).toBe(502)
    expect(failed.data).toEqual({
      error:
        'We could not change your plan. You have not been charged; please try again in a moment.',
    })
    expect(app.stack.polar.state.subscriptions.get(subscriptionId)!.product_id).toBe(
      catalogPlan('pro').polar.productId,
    )
    expect(await row(user.id)).toMatchObject({ plan_name: 'Pro' })

    app.stack.polar.addFault({ path: '/v1/subscriptions', status: 503, count: 1 })
    const unreachable = await page(user.cookie)
    expect(unreachable.status).toBe(502)
    expect(unreachable.data).toMatchObject({ kind: 'unavailable' })
  })
})
