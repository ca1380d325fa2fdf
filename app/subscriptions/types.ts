import type { Database } from '../../supabase/database.types'

type Tables = Database['public']['Tables']

export type SubscriptionRow = Omit<
  Tables['user_subscriptions']['Row'],
  'metadata' | 'last_event_rank'
> & { metadata: Record<string, unknown> }

export type PaymentRow = Tables['payment_history']['Row']

/** A payment as it is recorded; with no user, the ledger finds it by the provider's rules' keys. */
export type NewPayment = Omit<
  PaymentRow,
  'id' | 'updated_at' | 'user_id' | 'amount_refunded' | 'dispute_status' | 'provider_charge_id'
> & {
  user_id: string | null
  provider_charge_id?: string | null
  /** The card it was paid with, kept on the subscription. */
  card?: { brand: string; last4: string } | null
  [key: `${string}_customer_id` | `${string}_subscription_id`]: string | null | undefined
}
