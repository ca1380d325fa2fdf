import type { SupabaseClient } from '@supabase/supabase-js'
import type { PaymentRow } from './types'
import { getOwnSubscription } from './store.server'

export const PAYMENTS_PAGE_SIZE = 10

/** The user's subscription and one page of their payments, newest first (read under RLS). */
export async function getBillingOverview(supabase: SupabaseClient, userId: string, page = 1) {
  const from = (Math.max(1, page) - 1) * PAYMENTS_PAGE_SIZE
  const [subscription, payments] = await Promise.all([
    getOwnSubscription(supabase, userId),
    supabase
      .from('payment_history')
      .select('id, provider, amount, currency, status, description, invoice_url, created_at', {
        count: 'exact',
      })
      .eq('user_id', userId)
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .range(from, from + PAYMENTS_PAGE_SIZE - 1),
  ])
  if (payments.error) throw new Error(`payment history read failed: ${payments.error.message}`)
  const total = payments.count ?? 0
  return {
    subscription,
    payments: (payments.data ?? []) as Pick<
      PaymentRow,
      | 'id'
      | 'provider'
      | 'amount'
      | 'currency'
      | 'status'
      | 'description'
      | 'invoice_url'
      | 'created_at'
    >[],
    page: Math.max(1, page),
    pageCount: Math.max(1, Math.ceil(total / PAYMENTS_PAGE_SIZE)),
    total,
  }
}
