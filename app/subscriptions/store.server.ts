import type { SupabaseClient } from '@supabase/supabase-js'
import { getSupabaseAdmin } from '~/lib/supabase-admin.server'
import type { PaymentRow, SubscriptionRow } from './types'
import { databaseError } from '~/lib/database-availability.server'
import { postgrestRpc } from '~/lib/postgrest-rpc.server'

export type Provider = 'stripe' | 'polar'

/** Identifies one provider event in the ledger. */
export interface LedgerEvent {
  provider: Provider
  id: string
  type: string
  occurredAt: string
}

export type ApplyResult = 'applied' | 'duplicate' | 'no_user' | 'stale' | 'superseded'
export type PaymentResult = 'applied' | 'duplicate' | 'exists' | 'no_user'

/** The ledger functions: one plain request each (postgrest-rpc.server.ts), the webhooks' hot path. */
async function rpc<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const { data, error } = await postgrestRpc<T>(name, args)
  if (error) throw databaseError(name, error)
  return data as T
}

/** Records an event that has no effect (logged only), so repeats are recognisable. Returns false for a repeat. */
export function recordEvent(event: LedgerEvent) {
  return rpc<boolean>('record_webhook_event', {
    p_provider: event.provider,
    p_event_id: event.id,
    p_event_type: event.type,
    p_occurred_at: event.occurredAt,
  })
}

/** Applies a subscription event to the user's row, exactly once and never over a newer one. */
export function applySubscriptionEvent(
  event: LedgerEvent,
  userId: string | null,
  fields: Partial<SubscriptionRow>,
) {
  return rpc<ApplyResult>('apply_subscription_event', {
    p_provider: event.provider,
    p_event_id: event.id,
    p_event_type: event.type,
    p_occurred_at: event.occurredAt,
    p_user_id: userId,
    p_fields: fields,
  })
}

/** Records a payment or refund, exactly once per invoice / order and status. */
export function recordPaymentEvent(
  event: LedgerEvent,
  payment: Omit<PaymentRow, 'id' | 'updated_at' | 'user_id'> & { user_id: string | null },
) {
  return rpc<PaymentResult>('record_payment_event', {
    p_provider: event.provider,
    p_event_id: event.id,
    p_event_type: event.type,
    p_occurred_at: event.occurredAt,
    p_payment: payment,
  })
}

/** Finds a user id by a provider column of user_subscriptions (service role). */
export async function findUserIdBy(
  column:
    'stripe_customer_id' | 'stripe_subscription_id' | 'polar_subscription_id' | 'polar_customer_id',
  value: string,
) {
  const { data, error } = await getSupabaseAdmin()
    .from('user_subscriptions')
    .select('user_id')
    .eq(column, value)
    .limit(1)
    .maybeSingle<{ user_id: string }>()
  if (error) throw databaseError('user lookup', error)
  return data?.user_id ?? null
}

/** The signed-in user's subscription row, read through their own client (RLS applies). */
export async function getOwnSubscription(supabase: SupabaseClient, userId: string) {
  const { data, error } = await supabase
    .from('user_subscriptions')
    .select('*')
    .eq('user_id', userId)
    .maybeSingle<SubscriptionRow>()
  if (error) throw databaseError('subscription read', error)
  return data
}

export { LIVE_STATUSES } from './status'
