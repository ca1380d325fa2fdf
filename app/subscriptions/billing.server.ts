import type { SupabaseClient } from '@supabase/supabase-js'
import type { PaymentRow } from './types'
import { getOwnSubscription } from './store.server'

export const PAYMENTS_PAGE_SIZE = 10

/**
 * The user's subscription and one page of their payments, newest first (read under RLS).
 * A page past the end (an old link, a hand-edited URL) gives the last page.
 */
export async function getBillingOverview(supabase: SupabaseClient, userId: string, page = 1) {
  const readPayments = (pageNumber: number) => {
    const from = (pageNumber - 1) * PAYMENTS_PAGE_SIZE
    return supabase
      .from('payment_history')
      .select('id, provider, amount, currency, status, description, invoice_url, created_at', {
        count: 'exact',
      })
      .eq('user_id', userId)
      .order('created_at', { ascending: false })
      .order('id', { ascending: false })
      .range(from, from + PAYMENTS_PAGE_SIZE - 1)
  }
  let current = Math.max(1, page)
  const [subscription, firstRead] = await Promise.all([
    getOwnSubscription(supabase, userId),
    readPayments(current),
  ])
  let payments = firstRead
  // PostgREST answers a range past the end with an error (PGRST103) or no rows.
  if (current > 1 && (payments.error?.code === 'PGRST103' || payments.data?.length === 0)) {
    const counted = await supabase
      .from('payment_history')
      .select('id', { count: 'exact', head: true })
      .eq('user_id', userId)
    if (counted.error) throw new Error(`payment history count failed: ${counted.error.message}`)
    current = Math.max(1, Math.ceil((counted.count ?? 0) / PAYMENTS_PAGE_SIZE))
    payments = await readPayments(current)
  }
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
    page: current,
    pageCount: Math.max(1, Math.ceil(total / PAYMENTS_PAGE_SIZE)),
    total,
  }
}
