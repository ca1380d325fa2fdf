import type { Database } from '../../supabase/database.types'

/**
 * Row types of the billing tables, as generated from supabase/migrations, with the
 * provider narrowed to the two the app knows.
 */
type Tables = Database['public']['Tables']

export type SubscriptionRow = Omit<
  Tables['user_subscriptions']['Row'],
  'provider' | 'metadata' | 'last_event_rank'
> & { provider: 'stripe' | 'polar' | null; metadata: Record<string, unknown> }

export type PaymentRow = Omit<Tables['payment_history']['Row'], 'provider'> & {
  provider: 'stripe' | 'polar'
}

/** A payment as it is recorded: its user is null when the event does not name one. */
export type NewPayment = Omit<PaymentRow, 'id' | 'updated_at' | 'user_id'> & {
  user_id: string | null
}
