import type { SupabaseClient } from '@supabase/supabase-js'
import { getEnv } from '~/env.server'
import { getOwnSubscription } from '~/subscriptions/store.server'
import { getPolar } from './client.server'

export type PolarPortalOutcome = { kind: 'url'; url: string } | { kind: 'no-subscription' }

/** A Polar customer portal session for the user's own customer id (never from input). */
export async function createPolarPortal(
  supabase: SupabaseClient,
  userId: string,
): Promise<PolarPortalOutcome> {
  const row = await getOwnSubscription(supabase, userId)
  if (!row?.polar_customer_id) return { kind: 'no-subscription' }
  const session = await getPolar('portal').customerSessions.create({
    customer_id: row.polar_customer_id,
    return_url: `${getEnv().SITE_URL}/dashboard/settings/billing`,
  })
  return { kind: 'url', url: session.customer_portal_url }
}
