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
const accountSummary = z.object({
  profile: z.nullable(profileSummary),
  subscription: z.nullable(tableRow<SubscriptionRow>()),
})

/** What the pages and actions read of a profile (public.user_profiles), and may change. */
export type ProfileSummary = z.infer<typeof profileSummary>
/** The signed-in user's profile and subscription (null when there is no such row). */
export type AccountSummary = z.infer<typeof accountSummary>

/** The one read of the user's profile and subscription, as them (RLS holds it to their rows). */
export function readAccountSummary(asUser: AsUser): Promise<AccountSummary> {
  return rpc('account_summary', {}, { asUser, get: true, result: accountSummary })
}

const summaries = new WeakMap<object, Promise<AccountSummary>>()

/** The summary for `requireUserWith`, read once per request: layout and page share it. */
export function accountSummaryOf(request: Request) {
  return ({ asUser }: { asUser: AsUser }) => {
    const summary = summaries.get(requestKey(request)) ?? readAccountSummary(asUser)
    summaries.set(requestKey(request), summary)
    return summary
  }
}
