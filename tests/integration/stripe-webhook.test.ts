import { randomUUID } from 'node:crypto'

import Stripe from 'stripe'
import { beforeAll, describe, expect, it, vi } from 'vitest'

import { recentEvents } from '~/billing/webhooks/recent-events.server'
import { LOCAL_DEFAULTS } from '~/env.server'
import { logger } from '~/lib/server/logger.server'
import { deliverDueMails } from '~/notifications/delivery.server'

import {
  adminClient,
  createSignedInUser,
  failWritesTo,
  ledgerCount,
  rowsWhere,
  subscriptionRowOf,
  testAppForFile,
  withEnv,
} from './harness'
import { mailCatcher, mailSubject } from './mail-support'
import { invoiceObject, postStripeEvent, stripeEvent, subscriptionObject } from './stripe-fixtures'

/** Signed Stripe events through the real HTTP route into the real database. */
const app = testAppForFile()
let userId: string
const OK = { status: 200, body: { received: true } }
const BAD_SIGNATURE = { status: 400, body: { error: 'Webhook signature verification failed' } }
const SECRET = LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET

beforeAll(async () => {
  userId = (await createSignedInUser(app)).id
})

describe('signature', () => {
  it.each([
    ['a missing signature', { header: null }],
    ['a wrong secret', { secret: 'whsec_wrong' }],
    ['a timestamp older than 300 seconds', { timestamp: Math.floor(Date.now() / 1000) - 301 }],
    [
      'a body changed (re-serialised) after signing',
      { header: Stripe.webhooks.generateTestHeaderString({ payload: '{}', secret: SECRET }) },
    ],
  ])('rejects %s and writes nothing', async (_label, options) => {
    const event = stripeEvent('customer.subscription.created', subscriptionObject({ userId }))
    expect(await postStripeEvent(app.url, event, options)).toEqual(BAD_SIGNATURE)
    expect(await ledgerCount(app, event.id)).toBe(0)
  })

  it('accepts the previous secret while STRIPE_WEBHOOK_SECRET_PREVIOUS is set, alone or beside the new one; neither is refused', async () => {
    const current = app.stack.env.STRIPE_WEBHOOK_SECRET
    const previous = 'whsec_the_one_being_rolled'
    const signed = (payload: string, secret: string, timestamp: number) =>
      Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp })
    // A type the app does not apply: answered 200 once its signature holds.
    const event = () => stripeEvent('product.created', { id: 'prod_roll', object: 'product' })
    // Before the setting, the previous secret's signature is refused.
    expect((await postStripeEvent(app.url, event(), { secret: previous })).status).toBe(400)
    await withEnv({ STRIPE_WEBHOOK_SECRET_PREVIOUS: previous }, async () => {
      const owner = (await createSignedInUser(app)).id
      const old = stripeEvent(
        'customer.subscription.created',
        subscriptionObject({ userId: owner }),
      )
      expect(await postStripeEvent(app.url, old, { secret: previous })).toEqual(OK)
      expect(await ledgerCount(app, old.id)).toBe(1)
      expect(await subscriptionRowOf(app, owner)).toMatchObject({ status: 'active' })
      // During a roll: one v1 per active secret, the new one first.
      const both = JSON.stringify(event())
      const t = Math.floor(Date.now() / 1000)
      const header = `${signed(both, 'whsec_new_not_yet_here', t)},v1=${signed(both, previous, t).split('v1=')[1]}`
      expect((await postStripeEvent(app.url, both, { header })).status).toBe(200)
      expect((await postStripeEvent(app.url, event(), { secret: current })).status).toBe(200)
      expect(await postStripeEvent(app.url, event(), { secret: 'whsec_neither' })).toEqual(
        BAD_SIGNATURE,
      )
    })
  })

  it('accepts the spec header name on the spec path', async () => {
    const event = stripeEvent('charge.captured', { id: 'ch_1', object: 'charge' })
    const result = await postStripeEvent(app.url, event, {
      headerName: 'providera-signature',
      path: '/api/webhooks/providera',
    })
    expect(result).toEqual(OK)
  })

  it.each([
    [
      'a signed event of a handled type with a malformed object',
      stripeEvent('customer.subscription.updated', {
        id: 'sub_x',
        object: 'subscription',
        items: 'nope',
      }),
      {},
      { status: 400, body: { error: 'Invalid webhook payload' } },
    ],
    [
      'an oversized body',
      'x'.repeat(1024 * 1024 + 10),
      { header: 't=1,v1=abc' },
      { status: 413, body: { error: 'Payload too large' } },
    ],
  ])('answers %s in kind and writes nothing', async (_label, event, options, answer) => {
    expect(await postStripeEvent(app.url, event, options)).toEqual(answer)
    if (typeof event !== 'string') expect(await ledgerCount(app, event.id)).toBe(0)
  })
})

describe('events', () => {
  const subscriptionId = `sub_${randomUUID().slice(0, 8)}`
  const sub = (fields: Partial<Parameters<typeof subscriptionObject>[0]> = {}) =>
    subscriptionObject({ id: subscriptionId, userId, customer: 'cus_a', ...fields })
  const updated = (fields: Parameters<typeof sub>[0], created: number) =>
    stripeEvent('customer.subscription.updated', sub(fields), { created })

  it('customer.subscription.created upserts the row with plan, cycle, periods and metadata', async () => {
    const event = stripeEvent('customer.subscription.created', sub(), { created: 1_780_000_000 })
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    expect(await subscriptionRowOf(app, userId)).toMatchObject({
      provider: 'stripe',
      stripe_customer_id: 'cus_a',
      stripe_subscription_id: subscriptionId,
      plan_name: 'Pro',
      status: 'active',
      billing_cycle: 'month',
      cancel_at_period_end: false,
      metadata: { user_id: userId, user_email: 'x@example.com' },
    })
    expect(
      new Date(String((await subscriptionRowOf(app, userId))?.current_period_start)).getTime(),
    ).toBe(1_780_000_000_000)
  })

  it('a repeated delivery changes nothing (ledger)', async () => {
    const event = updated({ cancelAtPeriodEnd: true, feedback: 'too_expensive' }, 1_780_000_100)
    expect((await postStripeEvent(app.url, event)).status).toBe(200)
    const after = await subscriptionRowOf(app, userId)
    expect(after).toMatchObject({
      cancel_at_period_end: true,
      cancellation_feedback: 'too_expensive',
    })
    // Same event id, different content: the ledger recognises it and nothing changes.
    const replay = { ...event, data: { object: sub({ cancelAtPeriodEnd: false }) } }
    expect(await postStripeEvent(app.url, replay)).toEqual(OK)
    expect((await subscriptionRowOf(app, userId))?.cancel_at_period_end).toBe(true)
    // Another instance (or this one after a restart) has not seen it: the ledger decides.
    recentEvents.clear()
    expect(await postStripeEvent(app.url, replay)).toEqual(OK)
    expect((await subscriptionRowOf(app, userId))?.cancel_at_period_end).toBe(true)
    expect(await ledgerCount(app, event.id)).toBe(1)
  })

  it('a repeat of an event this instance handled is answered without the database', async () => {
    const event = updated({}, 1_780_000_150)
    expect((await postStripeEvent(app.url, event)).status).toBe(200)
    // From now on the ledger cannot be written: a new event fails, the repeat still answers.
    const restore = await failWritesTo(app, 'webhook_events')
    try {
      expect(await postStripeEvent(app.url, event)).toEqual(OK)
      expect((await postStripeEvent(app.url, updated({}, 1_780_000_160))).status).toBe(500)
    } finally {
      await restore()
    }
  })

  // Concurrent duplicates, unknown users and the ordering rules: tests/db/webhook-apply.test.ts;
  // an unhandled type: metrics.test.ts.
  it('an older event arriving late does not overwrite newer state', async () => {
    for (const event of [
      updated({ status: 'past_due' }, 1_780_000_200),
      updated({}, 1_780_000_190),
    ])
      expect(await postStripeEvent(app.url, event)).toEqual(OK)
    expect((await subscriptionRowOf(app, userId))?.status).toBe('past_due')
  })

  it('customer.subscription.deleted marks it canceled with canceled_at', async () => {
    const deleted = sub({ status: 'canceled', canceledAt: 1_780_000_300 })
    const event = stripeEvent('customer.subscription.deleted', deleted, { created: 1_780_000_300 })
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    const row = await subscriptionRowOf(app, userId)
    expect([row?.status, new Date(String(row?.canceled_at)).getTime()]).toEqual([
      'canceled',
      1_780_000_300_000,
    ])
  })

  it('invoice.payment_succeeded records one payment with amount, currency, status and invoice URL', async () => {
    const invoice = invoiceObject({ subscription: subscriptionId, userId, amount: 2900 })
    const event = stripeEvent('invoice.payment_succeeded', invoice)
    expect((await postStripeEvent(app.url, event)).status).toBe(200)
    expect(
      (await postStripeEvent(app.url, stripeEvent('invoice.payment_succeeded', invoice))).status,
    ).toBe(200)
    expect(
      await rowsWhere(app, 'payment_history', { provider_payment_id: invoice.id }),
    ).toMatchObject([
      {
        user_id: userId,
        provider: 'stripe',
        amount: 2900,
        currency: 'usd',
        status: 'paid',
        invoice_url: 'https://invoice.example/in_1',
        description: 'Pro payment',
        provider_charge_id: null,
      },
    ])
  })
})

describe('invoice.payment_failed', () => {
  it('queues one mail per failed attempt, delivered only when the billing preference allows it', async () => {
    const mails = mailCatcher()
    const user = await createSignedInUser(app)
    const failed = () => {
      const invoice = {
        ...invoiceObject({ subscription: 'sub_failed', userId: user.id }),
        customer_email: user.email,
        status: 'open',
        attempt_count: 1,
        hosted_invoice_url: 'https://invoice.stripe.com/i/acct_local/in_failed',
      }
      return stripeEvent('invoice.payment_failed', invoice)
    }
    const event = failed()
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    expect(await postStripeEvent(app.url, event)).toEqual(OK)
    await deliverDueMails(mails.transport)
    const [mail] = mails.to(user.email)
    expect(mails.to(user.email)).toHaveLength(1)
    expect(mail.subject).toBe(mailSubject('payment_failed'))
    expect(mail.text).toContain(`${app.url}/dashboard/settings/billing`)
    expect(mail.text).toContain('https://invoice.stripe.com/i/acct_local/in_failed')

    await adminClient(app)
      .from('user_profiles')
      .update({ notify_billing: false })
      .eq('user_id', user.id)
    expect((await postStripeEvent(app.url, failed())).status).toBe(200)
    await deliverDueMails(mails.transport)
    expect(mails.to(user.email)).toHaveLength(1)
    // Each failed invoice is in the billing history once, marked failed, mailed or not.
    const history = rowsWhere(app, 'payment_history', { user_id: user.id }, { select: 'status' })
    expect(await history).toEqual([{ status: 'failed' }, { status: 'failed' }])
  })

  /** A renewal invoice of the user's Pro plan that Stripe could not collect. */
  function failedInvoice(user: { id: string; email: string }) {
    const invoice = invoiceObject({ subscription: 'sub_retry', userId: user.id, amount: 0 })
    return { ...invoice, status: 'open', amount_due: 2900, customer_email: null }
  }
  const historyOf = (provider_payment_id: string) =>
    rowsWhere(
      app,
      'payment_history',
      { provider_payment_id },
      {
        select: 'status, amount, description, invoice_url',
      },
    )

  it('records the failed invoice (status failed, the amount due); paying it later turns that row into the payment', async () => {
    const user = await createSignedInUser(app)
    const invoice = failedInvoice(user)
    expect(
      (await postStripeEvent(app.url, stripeEvent('invoice.payment_failed', invoice))).status,
    ).toBe(200)
    expect(await historyOf(invoice.id)).toEqual([
      {
        status: 'failed',
        amount: 2900,
        description: 'Pro payment',
        invoice_url: invoice.hosted_invoice_url,
      },
    ])
    const paid = { ...invoice, status: 'paid', amount_paid: 2900 }
    expect(
      (await postStripeEvent(app.url, stripeEvent('invoice.payment_succeeded', paid))).status,
    ).toBe(200)
    expect(await historyOf(invoice.id)).toEqual([
      {
        status: 'paid',
        amount: 2900,
        description: 'Pro payment',
        invoice_url: invoice.hosted_invoice_url,
      },
    ])
    // The failure's mail, then the receipt of the payment that replaced it.
    const mails = mailCatcher()
    await deliverDueMails(mails.transport)
    const subjects = mails.to(user.email).map((mail) => mail.subject)
    expect(subjects).toHaveLength(2)
    expect(subjects).toEqual(
      expect.arrayContaining([mailSubject('payment_failed'), expect.stringMatching(/receipt/i)]),
    )
  })

  it('a failure delivered after the payment of the same invoice changes nothing', async () => {
    const user = await createSignedInUser(app)
    const invoice = failedInvoice(user)
    const paid = { ...invoice, status: 'paid', amount_paid: 2900 }
    expect(
      (await postStripeEvent(app.url, stripeEvent('invoice.payment_succeeded', paid))).status,
    ).toBe(200)
    expect(
      (await postStripeEvent(app.url, stripeEvent('invoice.payment_failed', invoice))).status,
    ).toBe(200)
    expect(await historyOf(invoice.id)).toMatchObject([{ status: 'paid', amount: 2900 }])
  })
})

it('a thin event (an event destination with the Thin payload style): is answered 200 once, with nothing applied, and the log names the setting to change', async () => {
  const user = await createSignedInUser(app)
  const error = vi.spyOn(logger, 'error').mockImplementation(() => {})
  app.stack.stripe.setPayloadStyle('thin')
  try {
    const created = await app.stack.stripe.trigger('customer.subscription.created', {
      metadata: { user_id: user.id },
    })
    await app.stack.stripe.idle()
    // Acknowledged: a retry would carry the same thin payload, and failures disable the
    // destination (even one running beside a snapshot destination).
    const attempts = app.stack.stripe.deliveries().filter((entry) => entry.eventId === created.id)
    expect(attempts.map((entry) => entry.status)).toEqual([200])
    expect(await ledgerCount(app, created.id)).toBe(0)
    expect(await subscriptionRowOf(app, user.id)).toBeNull()
    expect(error).toHaveBeenCalledWith(
      expect.anything(),
      expect.stringContaining('set the event destination’s payload style to Snapshot'),
    )
  } finally {
    app.stack.stripe.setPayloadStyle('snapshot')
    error.mockRestore()
  }
})
