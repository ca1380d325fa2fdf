import { afterEach, describe, expect, it } from 'vitest'

import { subscribeAtStripe } from './accounts'
import {
  createSignedInUser,
  emulatorStripe,
  rowsWhere,
  startTestApp,
  type TestApp,
} from './harness'

let app: TestApp | undefined
afterEach(async () => {
  await app?.close()
  app = undefined
})

const rowOf = async (running: TestApp, user_id: string) =>
  (
    await rowsWhere(
      running,
      'user_subscriptions',
      { user_id },
      {
        select: 'status, payment_failed_at, payment_retry_at',
      },
    )
  )[0]
const paymentsOf = (running: TestApp, user_id: string) =>
  rowsWhere(
    running,
    'payment_history',
    { user_id },
    {
      select: 'provider_payment_id, status, amount',
      order: 'created_at',
    },
  )

function postForm(url: string, fields: Record<string, string>, cookie?: string) {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie ? { Cookie: cookie } : {}),
    },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  })
}

/** A Pro subscriber whose renewal was just declined. */
async function pastDueSubscriber(running: TestApp) {
  const user = await createSignedInUser(running)
  const stripe = emulatorStripe(running)
  const { subscription } = await subscribeAtStripe(stripe, user)
  await running.stack.stripe.advanceSubscription(subscription.id, { fail: true })
  await running.stack.stripe.idle()
  const declined = await stripe.subscriptions.retrieve(subscription.id)
  const invoice = await stripe.invoices.retrieve(declined.latest_invoice as string)
  return { user, subscription, invoice }
}

describe('payment recovery', () => {
  it('past due names the failure and the retry; the portal opens on the card form; paying clears it', async () => {
    app = await startTestApp()
    const { user, invoice } = await pastDueSubscriber(app)
    const pastDue = await rowOf(app, user.id)
    expect(pastDue.status).toBe('past_due')
    expect(pastDue.payment_failed_at).not.toBeNull()
    expect(Date.parse(String(pastDue.payment_retry_at))).toBe(invoice.next_payment_attempt! * 1000)
    expect((await paymentsOf(app, user.id)).at(-1)).toEqual({
      provider_payment_id: invoice.id,
      status: 'failed',
      amount: 2900,
    })

    // "Update payment method": the portal opens straight on its card form.
    const billing = `${app.url}/dashboard/settings/billing`
    // Paying before a new card is saved: the card on file declines again, nothing changes.
    const declined = await postForm(billing, { intent: 'pay' }, user.cookie)
    expect(declined.status).toBe(502)
    expect(await declined.text()).toContain('Your card was declined and nothing was charged.')
    expect((await rowOf(app, user.id)).status).toBe('past_due')
    const opened = await postForm(billing, { intent: 'update_payment_method' }, user.cookie)
    expect(opened.status).toBe(303)
    const portalUrl = opened.headers.get('location')!
    const cardForm = await (await fetch(portalUrl)).text()
    expect(cardForm).toContain('<h1>Update payment method</h1>')
    expect(cardForm).not.toContain('Cancel at period end')
    // "Manage billing" still opens the portal's homepage, reading the subscription once.
    const rowReads = () => app!.stack.supabase.restCountsByPath()['/user_subscriptions'] ?? 0
    const readsBefore = rowReads()
    const manage = await postForm(billing, { intent: 'portal' }, user.cookie)
    expect(rowReads() - readsBefore).toBe(1)
    expect(await (await fetch(manage.headers.get('location')!)).text()).toContain(
      'Manage your subscription',
    )
    // Saving the card comes back to the billing page, which then says the card is saved.
    const saved = await postForm(portalUrl, {
      intent: 'update_payment_method',
      cardNumber: '4242 4242 4242 4242',
    })
    expect(saved.headers.get('location')).toBe(
      `${billing.replace(app.url, app.stack.env.SITE_URL)}?card=saved`,
    )

    // An hour later the subscriber pays the open invoice with it from billing: active at once.
    app.stack.stripe.advanceClock(3600)
    const paid = await postForm(billing, { intent: 'pay' }, user.cookie)
    expect(paid.headers.get('location')).toBe('/dashboard/settings/billing?notice=invoice-paid')
    expect((await rowOf(app, user.id)).status).toBe('active')
    await app.stack.stripe.idle()
    expect(await rowOf(app, user.id)).toEqual({
      status: 'active',
      payment_failed_at: null,
      payment_retry_at: null,
    })
    expect((await paymentsOf(app, user.id)).at(-1)).toEqual({
      provider_payment_id: invoice.id,
      status: 'paid',
      amount: 2900,
    })
  })

  it('holds when the same events arrive shuffled and partly duplicated', async () => {
    app = await startTestApp({
      stripeDelivery: { mode: 'shuffled', windowMs: 150, duplicateRate: 0.5, seed: 3 },
    })
    const { user, subscription, invoice } = await pastDueSubscriber(app)
    expect((await rowOf(app, user.id)).status).toBe('past_due')
    app.stack.stripe.advanceClock(3600)
    await emulatorStripe(app)
      .invoices.pay(invoice.id)
      .catch(() => undefined)
    await postForm(invoice.hosted_invoice_url!, { cardNumber: '4242424242424242' })
    await app.stack.stripe.idle()
    expect(app.stack.stripe.deliveries().some((delivery) => delivery.duplicate)).toBe(true)
    expect(app.stack.stripe.deliveries().every((delivery) => delivery.ok)).toBe(true)
    const stripe = emulatorStripe(app)
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active')
    expect((await rowOf(app, user.id)).status).toBe('active')
    const invoices = await stripe.invoices.list({ subscription: subscription.id })
    expect(await paymentsOf(app, user.id)).toEqual(
      invoices.data
        .reverse()
        .map((entry) => ({ provider_payment_id: entry.id, status: 'paid', amount: 2900 })),
    )
  })
})
