import type { Database } from '../../supabase/database.types'

/** Row types of the billing tables, as generated from supabase/migrations. */
type Tables = Database['public']['Tables']

export type SubscriptionRow = Omit<
  Tables['user_subscriptions']['Row'],
  'metadata' | 'last_event_rank'
> & { metadata: Record<string, unknown> }

export type PaymentRow = Tables['payment_history']['Row']

/** A payment as it is recorded: its user is null when the event does not name one. */
export type NewPayment = Omit<
  PaymentRow,
  'id' | 'updated_at' | 'user_id' | 'amount_refunded' | 'dispute_status'
> & {
  user_id: string | null
  amount_refunded?: number
}
