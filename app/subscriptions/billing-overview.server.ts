import * as z from 'zod/mini'

import { accountSummary } from '~/account/summary.server'
import { type AsUser, database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { rpc, tableRow } from '~/lib/database/rpc.server'

import type { PaymentRow, SubscriptionRow } from './types'

const PAYMENTS_PAGE_SIZE = 10

/** One payment as the billing page shows it: without its user and provider references. */
export type PaymentView = Omit<PaymentRow, `${string}_id` | 'updated_at'>

/** One payment of the page with its provider references (for the deferred lookups). */
export type PaymentWithReferences = PaymentView &
  Pick<PaymentRow, Extract<keyof PaymentRow, `${string}_id`>>

const billingOverview = z.object({
  ...accountSummary.shape,
  payments: z.array(tableRow<PaymentWithReferences>()),
  total: z.number(),
  page: z.number(),
  plan_change: z.nullable(z.record(z.string(), z.unknown())),
})

/** The signed-in user's own subscription row (read as them, so RLS holds it to theirs), or null. */
export async function readOwnSubscription(asUser: AsUser): Promise<SubscriptionRow | null> {
  const { data, error, status } = await database({ asUser })
    .from('user_subscriptions')
    .select('*')
    .maybeSingle()
  if (error) throw databaseError('subscription read', { ...error, status })
  return data as SubscriptionRow | null
}

/** One call under RLS: the summary and a page of payments with their provider references. */
export async function getBillingOverview(asUser: AsUser, page = 1, pageSize = PAYMENTS_PAGE_SIZE) {
  const overview = await rpc(
    'account_billing_overview',
    // Any page past the end gives the last; the bound keeps it within Postgres' int.
    { p_page: Math.min(Math.max(1, page), 1_000_000), p_page_size: pageSize },
    { asUser, get: true, result: billingOverview },
  )
  return { ...overview, pageCount: Math.max(1, Math.ceil(overview.total / pageSize)) }
}
