import * as z from 'zod/mini'

import type { AsUser } from '~/lib/database/database.server'
import { rpc, tableRow } from '~/lib/database/rpc.server'
import { requestKey } from '~/lib/server/request-context.server'
import type { SubscriptionRow } from '~/subscriptions/types'

const profileSummary = z.object({
  display_name: z.nullable(z.string()),
  avatar_path: z.nullable(z.string()),
  notify_product_updates: z.boolean(),
  notify_billing: z.boolean(),
  notify_security: z.boolean(),
})
export const accountSummary = z.object({
  profile: z.nullable(profileSummary),
  subscription: z.nullable(tableRow<SubscriptionRow>()),
})

/** Account settings' summary: with what the auth server holds (its migration says what). */
const accountSettings = z.extend(accountSummary, {
  account: z.nullable(
    z.object({
      email: z.string(),
      pending_email: z.nullable(z.string()),
      password: z.boolean(),
      github: z.boolean(),
      waiting_for: z.nullable(z.enum(['new', 'current'])),
    }),
  ),
})

export type ProfileSummary = z.infer<typeof profileSummary>
/** The signed-in user's profile and subscription (null when there is no such row). */
export type AccountSummary = z.infer<typeof accountSummary>

/** The one read of the user's profile and subscription, as them (RLS holds it to their rows). */
export function readAccountSummary(asUser: AsUser): Promise<AccountSummary> {
  return rpc('account_summary', {}, { asUser, get: true, result: accountSummary })
}

export function readAccountSettings(asUser: AsUser) {
  return rpc('account_settings_overview', {}, { asUser, get: true, result: accountSettings })
}

type Read = (asUser: AsUser) => Promise<AccountSummary>
const reads = new WeakMap<object, { read?: Read; answer?: ReturnType<Read> }>()

/** `requireUserWith`'s summary: one call per request. */
export function accountSummaryOf<T extends AccountSummary = AccountSummary>(
  request: Request,
  read?: (asUser: AsUser) => Promise<T>,
) {
  return async ({ asUser }: { asUser: AsUser }) => {
    const shared = reads.get(requestKey(request)) ?? {}
    if (shared.answer && read) return read(asUser) // already sent: a call of its own
    reads.set(requestKey(request), shared)
    shared.read ??= read
    await new Promise(setImmediate)
    return (shared.answer ??= (shared.read ?? readAccountSummary)(asUser)) as Promise<T>
  }
}

/** What the pages show of a subscription row (loader data is page source): no provider reference. */
export const subscriptionView = (row: SubscriptionRow) => ({
  status: row.status,
  plan_name: row.plan_name,
  trial_end: row.trial_end,
  canceled_at: row.canceled_at,
  cancel_at: row.cancel_at,
  cancel_at_period_end: row.cancel_at_period_end,
  current_period_end: row.current_period_end,
  payment_failed_at: row.payment_failed_at,
  payment_retry_at: row.payment_retry_at,
})
