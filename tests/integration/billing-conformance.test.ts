import { readFileSync } from 'node:fs'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { PROVIDER_SETTINGS } from '../../app/billing/provider-settings'
import { reconcileProvider } from '../../app/billing/reconcile.server'
import { billingProvider, endSubscription } from '../../app/billing/registry.server'
import { resetEnvForTests } from '../../app/env.server'
import { deliverDueMails } from '../../app/notifications/delivery.server'
import {
  adminClient,
  createSignedInUser,
  emulatorStripe,
  rowsWhere,
  subscriptionRowOf,
  testAppForFile,
} from './harness'
import { deliverTestpayEvents, payTestpayCheckout, testpayCustomerEmail } from './testpay/provider'

// The billing contract, the same for every provider (app/billing/provider.ts), against the
// adapters on their stand-ins and a test-only provider (./testpay/): a new one needs nothing else.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })
/** Every registered provider, the test-only one too (./testpay/register.ts). */
const PROVIDERS = PROVIDER_SETTINGS.map(({ id }) => id)

beforeAll(async () => {
  await app.stack.database.exec(
    readFileSync(new URL('testpay/migration.sql', import.meta.url), 'utf8'),
  )
  process.env.BILLING_PROVIDERS = PROVIDERS.join(',')
  resetEnvForTests()
})
afterAll(() => {
  delete process.env.BILLING_PROVIDERS
  resetEnvForTests()
})

/** What only the test knows of each provider: how a checkout opens and is paid, events arrive. */
const DRIVERS: Record<
  string,
  {
    open(location: string, cookie: string): Promise<string>
    pay(checkout: string): Promise<void>
    closed: RegExp
    idle(): Promise<void>
    /** The address the provider has for the row's customer. */
    customerEmail(row: Record<string, unknown>): Promise<string | undefined>
    /** Refunds part of a payment as the provider's dashboard does, if the provider refunds. */
    refund?(payment: Record<string, unknown>, cents: number): Promise<void>
  }
> = {
  stripe: {
    open: async (location) => location.split('/').pop()!,
    async pay(checkout) {
      const paid = await app.stack.stripe.completeCheckout(checkout)
      if (!paid.ok) throw new Error(paid.message)
      await app.stack.stripe.idle()
    },
    closed: /no longer active/,
    idle: () => app.stack.stripe.idle(),
    customerEmail: async (row) =>
      (
        (await emulatorStripe(app).customers.retrieve(row.stripe_customer_id as string)) as {
          email: string
        }
      ).email,
    async refund(payment, cents) {
      const intent = payment.provider_charge_id as string
      await emulatorStripe(app).refunds.create({ payment_intent: intent, amount: cents })
      await app.stack.stripe.idle()
    },
  },
  polar: {
    // Through the contract's GET /api/checkout, which answers with Polar's hosted page.
    async open(location, cookie) {
      const hosted = await fetch(`${app.url}${location}`, {
        headers: { cookie },
        redirect: 'manual',
      })
      return new URL(hosted.headers.get('location')!).pathname.split('/').pop()!
    },
    async pay(checkout) {
      await app.stack.polar.completeCheckout(checkout)
      await app.stack.polar.idle()
    },
    closed: /customer associated with this checkout has been deleted/,
    idle: () => app.stack.polar.idle(),
    customerEmail: async (row) =>
      app.stack.polar.state.customers.get(row.polar_customer_id as string)?.email,
    async refund(payment, cents) {
      const order = payment.provider_payment_id as string
      await app.stack.polar.trigger('refund', { order_id: order, amount: cents })
      await app.stack.polar.idle()
    },
  },
  testpay: {
    open: async (location) => location.split('/').pop()!,
    async pay(checkout) {
      payTestpayCheckout(checkout)
      await deliverTestpayEvents(app.url)
    },
    closed: /no open testpay checkout/,
    idle: () => deliverTestpayEvents(app.url),
    customerEmail: async (row) => testpayCustomerEmail(row.user_id as string),
  },
}

/** A signed-in form post to one of the app's pages, as the browser sends it. */
const post = (cookie: string, path: string, body: string) =>
  fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { cookie, origin: app.url, 'content-type': 'application/x-www-form-urlencoded' },
    body,
    redirect: 'manual',
  })

/** The checkout `/subscribe/pro` opens for the user at the provider. */
async function openCheckout(id: string, cookie: string) {
  const start = await fetch(`${app.url}/subscribe/pro?provider=${id}`, {
    headers: { cookie },
    redirect: 'manual',
  })
  expect(start.status).toBe(303)
  return DRIVERS[id].open(start.headers.get('location')!, cookie)
}

const rowOf = (userId: string) => subscriptionRowOf(app, userId)

it('drives every provider in the code', () => {
  expect(Object.keys(DRIVERS)).toEqual(PROVIDERS)
})

// First, before any of its rows exist: a provider is its rules row, which the ledger requires.
it('the test-only provider without its rules row records nothing: its webhooks fail', async () => {
  const rules = await app.stack.database.query(
    `delete from public.billing_provider_rules where provider = 'testpay' returning *`,
  )
  try {
    const user = await createSignedInUser(app)
    await expect(DRIVERS.testpay.pay(await openCheckout('testpay', user.cookie))).rejects.toThrow(
      'testpay webhook answered 500',
    )
    expect(await rowOf(user.id)).toBeNull()
  } finally {
    const [row] = rules.rows as Record<string, unknown>[]
    await app.stack.database.query(
      `insert into public.billing_provider_rules select * from jsonb_populate_record(null::public.billing_provider_rules, $1)`,
      [JSON.stringify(row)],
    )
  }
})

describe.each(PROVIDERS)('the %s adapter', (id) => {
  it('checkout → webhook → ledger row → payment and refund → email change → portal → cancel → reconcile', async () => {
    const driver = DRIVERS[id]
    const user = await createSignedInUser(app)

    await driver.pay(await openCheckout(id, user.cookie))

    const row = await rowOf(user.id)
    expect(row).toMatchObject({ provider: id, status: 'active', plan_name: 'Pro' })
    const subscriptionId = row?.[`${id}_subscription_id`] as string
    expect(subscriptionId).toBeTruthy()
    expect(row?.[`${id}_customer_id`]).toBeTruthy()
    expect(await rowsWhere(app, 'webhook_events', { provider: id })).not.toEqual([])
    // Its payment, on the billing page and in the payments CSV, as every provider's.
    for (const page of [
      '/dashboard/settings/billing',
      '/dashboard/settings/billing/payments.csv',
    ]) {
      const shown = await fetch(`${app.url}${page}`, { headers: { cookie: user.cookie } })
      expect(await shown.text()).toContain('Pro payment')
    }
    // A partial refund at the provider shows on that payment, on billing and in the CSV.
    if (driver.refund) {
      const paid = await rowsWhere(app, 'payment_history', { user_id: user.id })
      const payment = paid.find((row) => Number(row.amount) > 0)!
      await driver.refund(payment, 500)
      const billing = await fetch(`${app.url}/dashboard/settings/billing`, {
        headers: { cookie: user.cookie },
      })
      expect(await billing.text()).toContain('Partially refunded')
      const csv = await fetch(`${app.url}/dashboard/settings/billing/payments.csv`, {
        headers: { cookie: user.cookie },
      })
      // Amount, currency, refunded, status, then the provider's invoice (or order) id.
      expect((await csv.text()).split('\n').find((line) => line.includes('Pro payment'))).toContain(
        `,29.00,USD,5.00,"Partially refunded","${payment.provider_payment_id as string}",`,
      )
    }

    // A confirmed email change reaches the customer, through the outbox.
    const email = `changed-${user.id}@example.com`
    await deliverDueMails({ send: async () => undefined })
    await adminClient(app).auth.admin.updateUserById(user.id, { email, email_confirm: true })
    await deliverDueMails({ send: async () => undefined })
    expect(await driver.customerEmail(row!)).toBe(email)

    const manage = await post(user.cookie, '/dashboard/settings/billing', 'intent=portal')
    expect(manage.status).toBe(303)
    expect(manage.headers.get('location')).toMatch(/^https?:\/\//)
    expect(manage.headers.get('location')).not.toContain(app.url)

    // Cancel at the period end (the confirmation's form), then Resume (billing's form):
    // the row changes at once, the webhooks that follow agree, and each queues its mail.
    for (const [path, body, scheduled] of [
      ['/dashboard/settings/billing', 'intent=cancel', true],
      ['/dashboard/settings/billing', 'intent=resume', false],
    ] as const) {
      const answer = await post(user.cookie, path, body)
      expect(answer.status).toBe(303)
      expect(answer.headers.get('location')).toBe(
        `/dashboard/settings/billing${scheduled ? '' : '?notice=plan-resumed'}`,
      )
      expect(await rowOf(user.id)).toMatchObject({ cancel_at_period_end: scheduled })
      await driver.idle()
      expect(await rowOf(user.id)).toMatchObject({
        status: 'active',
        cancel_at_period_end: scheduled,
      })
    }
    const mails = await rowsWhere(
      app,
      'notification_outbox',
      { user_id: user.id },
      { order: 'created_at' },
    )
    expect(
      mails
        .map(({ kind }) => kind)
        .filter((kind) => /^subscription_(canceled|resumed)$/.test(String(kind))),
    ).toEqual(['subscription_canceled', 'subscription_resumed'])

    // Ended as account deletion ends it: now, or at the period end where that is all it can.
    const provider = billingProvider(id)!
    const [column, was, is] =
      provider.ends === 'now'
        ? ['status', 'active', 'canceled']
        : ['cancel_at_period_end', false, true]
    await endSubscription(provider, subscriptionId)
    await driver.idle()
    expect(await rowOf(user.id)).toMatchObject({ [column]: is })
    // Already ended at the provider: done, not an error.
    await endSubscription(provider, subscriptionId)

    // A lost event: the row says otherwise again. Reconciliation applies the provider's state.
    await adminClient(app)
      .from('user_subscriptions')
      .update({ [column]: was })
      .eq('user_id', user.id)
    const report = await reconcileProvider(id)
    expect(report.differences.filter((difference) => difference.userId === user.id)).toEqual([
      {
        userId: user.id,
        subscriptionId,
        changes: expect.arrayContaining([`${column}: ${was} → ${is}`]),
        result: 'applied',
      },
    ])
    expect(await rowOf(user.id)).toMatchObject({ [column]: is })
  })

  it('account deletion leaves no checkout the user opened payable', async () => {
    const user = await createSignedInUser(app)
    const checkout = await openCheckout(id, user.cookie)
    const form = 'intent=delete-account&confirm=DELETE&currentPassword=correct-horse-battery'
    const deleted = await post(user.cookie, '/dashboard/settings/account', form)
    expect(deleted.headers.get('location')).toBe('/account-deleted')
    await expect(DRIVERS[id].pay(checkout)).rejects.toThrow(DRIVERS[id].closed)
  })
})
