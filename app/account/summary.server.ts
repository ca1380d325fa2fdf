import { type AsUser, database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import type { SubscriptionRow } from '~/subscriptions/types'

/** What the pages and actions read of a profile (public.user_profiles), and may change. */
export interface ProfileSummary {
  display_name: string | null
  avatar_path: string | null
  notify_product_updates: boolean
  notify_billing: boolean
  notify_security: boolean
}

/** The signed-in user's profile and subscription (null when there is no such row). */
export interface AccountSummary {
  profile: ProfileSummary | null
  subscription: SubscriptionRow | null
}

/**
 * The one read of the signed-in user's profile and subscription: `account_summary()`, run as
 * them (their token), so row-level security holds it to their own rows.
 */
export async function readAccountSummary(asUser: AsUser): Promise<AccountSummary> {
  const { data, error, status } = await database({ asUser }).rpc('account_summary', undefined, {
    get: true,
  })
  if (error) throw databaseError('account summary read', { ...error, status })
  return data as unknown as AccountSummary
}

const summaries = new WeakMap<Request, Promise<AccountSummary>>()

/**
 * A signed-in page's read of the account summary, for `requireUserWith` /
 * `getOptionalUserWith` (read while the session is checked: one round trip for both), made
 * once per request, so the dashboard's layout and the page inside it share one read.
 */
export function accountSummaryOf(request: Request) {
  return ({ asUser }: { asUser: AsUser }) => {
    const summary = summaries.get(request) ?? readAccountSummary(asUser)
    summaries.set(request, summary)
    return summary
  }
}
