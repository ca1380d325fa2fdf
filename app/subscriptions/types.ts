/** Row types of the billing tables (supabase/migrations is the source of truth). */

export interface SubscriptionRow {
  id: string
  user_id: string
  provider: 'stripe' | 'polar' | null
  stripe_customer_id: string | null
  stripe_subscription_id: string | null
  polar_customer_id: string | null
  polar_subscription_id: string | null
  polar_product_id: string | null
  plan_name: string | null
  status: string | null
  billing_cycle: string | null
  current_period_start: string | null
  current_period_end: string | null
  cancel_at_period_end: boolean
  cancel_at: string | null
  canceled_at: string | null
  trial_start: string | null
  trial_end: string | null
  cancellation_reason: string | null
  cancellation_feedback: string | null
  cancellation_comment: string | null
  metadata: Record<string, unknown>
  last_event_at: string | null
  /** When a past-due subscription's payment failed (null when not past due). */
  payment_failed_at: string | null
  /** When the provider tries that payment again (null: not planned, or not said). */
  payment_retry_at: string | null
  created_at: string
  updated_at: string
}

export interface PaymentRow {
  id: string
  user_id: string
  provider: 'stripe' | 'polar'
  stripe_invoice_id: string | null
  stripe_payment_intent_id: string | null
  polar_subscription_id: string | null
  polar_order_id: string | null
  /** Minor units; negative for refunds. */
  amount: number
  currency: string
  status: string
  description: string | null
  invoice_url: string | null
  created_at: string
  updated_at: string
}
