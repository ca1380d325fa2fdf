// The Polar resources a stream needs, and the rows compared with the stream (soak, mixed bench).
import { createPolar } from '@polar-sh/sdk/2026-10'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import type { LocalStack } from '../../tests/local-stack/stack'
import {
  expectedState,
  PAYMENT_COLUMNS,
  type PolarResources,
  SUBSCRIPTION_COLUMNS,
  TIME_COLUMNS,
} from './stream'

/** Real checkouts and renewals in the Polar emulator, so order.paid finds its orders. */
export async function createPolarResources(
  stack: LocalStack,
  siteUrl: string,
  userId: string,
  index: number,
): Promise<PolarResources> {
  const polar = createPolar({
    accessToken: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
    environment: 'sandbox',
    baseUrl: stack.polar.url,
  })
  const subscriptions: PolarResources['subscriptions'] = []
  for (let n = 0; n < 2; n++) {
    const product = (index + n) % 2 === 0 ? 'pro' : 'starter'
    const checkout = await polar.checkouts.create({
      products: [catalogPlan(product).polar.productId],
      metadata: { user_id: userId },
      // The user's own customer, as the app's checkout makes it (one customer per email).
      external_customer_id: userId,
      customer_email: `soak-${userId}@example.com`,
      success_url: `${siteUrl}/success?checkout_id={CHECKOUT_ID}`,
    })
    const paid = await stack.polar.completeCheckout(checkout.id)
    const wire = (object: object) => object as unknown as Record<string, unknown>
    const ids = { subscription_id: paid.subscription.id }
    const orders = [wire(paid.order)]
    for (let renewal = 0; renewal < 3; renewal++) {
      const { order } = await stack.polar.trigger('renewal', ids)
      if (order) orders.push(wire(order))
    }
    // Polar sells a customer no second subscription while one is live.
    if (n === 0) await stack.polar.trigger('revoke', ids)
    subscriptions.push({ subscription: wire(paid.subscription), orders })
  }
  return { subscriptions }
}

function normalise(column: string, value: unknown) {
  if (value === null || value === undefined) return null
  if (TIME_COLUMNS.has(column)) return new Date(value as string | number).getTime()
  if (column === 'amount' || column === 'last_event_rank') return Number(value)
  if (typeof value === 'object') return JSON.stringify(value, Object.keys(value).sort())
  return value
}

/**
 * With `deferredInvoiceLinks` (the chaos soak's Polar faults may hit the invoice lookup), a
 * Polar payment without its invoice link is right by design (filled in later) and counted.
 */
export async function verify(
  stack: Pick<LocalStack, 'database'>,
  userIds: string[],
  expected: ReturnType<typeof expectedState>,
  options: { deferredInvoiceLinks?: boolean } = {},
) {
  const db = stack.database
  const mismatches: string[] = []
  const differ = (label: string, a: unknown, b: unknown) => {
    if (a !== b)
      mismatches.push(`${label}: database ${JSON.stringify(a)}, stream ${JSON.stringify(b)}`)
  }
  let rowsChecked = 0
  let deferredInvoiceLinks = 0
  const { rows: subscriptionRows } = await db.query<Record<string, unknown>>(
    'select * from public.user_subscriptions',
  )
  const actualByUser = new Map(subscriptionRows.map((row) => [row.user_id as string, row]))
  const indexOf = new Map(userIds.map((id, index) => [id, index]))
  for (const row of subscriptionRows)
    if (!indexOf.has(row.user_id as string)) mismatches.push(`unexpected row for ${row.user_id}`)
  userIds.forEach((userId, index) => {
    const want = expected.subscriptions.get(index)
    const got = actualByUser.get(userId)
    if (!want && !got) return
    rowsChecked += 1
    if (!want || !got) {
      mismatches.push(`user ${index}: subscription row ${want ? 'missing' : 'unexpected'}`)
      return
    }
    for (const column of SUBSCRIPTION_COLUMNS) {
      const label = `user ${index} (${want.provider}) ${column}`
      differ(label, normalise(column, got[column]), normalise(column, want[column]))
    }
  })

  const { rows: paymentRows } = await db.query<Record<string, unknown>>(
    'select * from public.payment_history',
  )
  const seen = new Set<string>()
  for (const row of paymentRows) {
    const key =
      row.provider === 'stripe'
        ? `stripe:${row.provider_payment_id}`
        : `polar:${row.provider_payment_id}:${row.status}`
    rowsChecked += 1
    if (seen.has(key)) mismatches.push(`payment ${key}: more than one row`)
    seen.add(key)
    const want = expected.payments.get(key)
    if (!want) {
      mismatches.push(`payment ${key}: not implied by the stream`)
      continue
    }
    for (const column of PAYMENT_COLUMNS) {
      const a = normalise(column, row[column])
      if (column === 'created_at') {
        if (![...want.createdAtChoices].includes(a as number))
          mismatches.push(
            `payment ${key} created_at: database ${a}, stream ${[...want.createdAtChoices]}`,
          )
        continue
      }
      const b = normalise(column, want.row[column])
      if (
        options.deferredInvoiceLinks &&
        column === 'invoice_url' &&
        row.provider === 'polar' &&
        a === null &&
        b !== null
      ) {
        deferredInvoiceLinks += 1
        continue
      }
      differ(`payment ${key} ${column}`, a, b)
    }
  }
  for (const key of expected.payments.keys())
    if (!seen.has(key)) {
      rowsChecked += 1
      mismatches.push(`payment ${key}: missing`)
    }
  return { rowsChecked, mismatches, deferredInvoiceLinks }
}
