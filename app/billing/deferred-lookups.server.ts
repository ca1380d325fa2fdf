import { setTimeout } from 'node:timers/promises'

import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { ExpiringCache } from '~/lib/server/expiring-cache'
import { logger } from '~/lib/server/logger.server'
import type { PaymentView, PaymentWithReferences } from '~/subscriptions/billing-overview.server'
import type { PaymentRow } from '~/subscriptions/types'

import { lookUpOrderInvoiceUrl } from './polar/invoice.server'
import { fetchHostedInvoiceUrl, fetchInvoicePaymentIntentId } from './stripe/invoice.server'

/**
 * Lookups a webhook deferred: a payment is recorded even when the provider could not give
 * its invoice URL (Polar) or the PaymentIntent that paid it (Stripe), since neither is
 * needed to record the event (docs/webhooks.md, "Lookups that can wait"). What is still
 * missing is looked up when its owner opens the billing page, bounded so that the page is
 * never slowed much and never fails:
 * - at most MAX_LOOKUPS rows per page view, each provider call with a short timeout, and
 *   the page waits at most DEADLINE_MS for all of them (a slower lookup still saves what it
 *   finds, for the next view);
 * - a row looked up without success is not tried again by this process for COOLDOWN_MS
 *   (an invoice Polar cannot produce, an invoice paid without a PaymentIntent);
 * - any failure is logged and the page shows the rows as they are ("Not available yet").
 */
export const MAX_LOOKUPS = 3
const DEADLINE_MS = 2500
const REQUEST_TIMEOUT_MS = 2000
const COOLDOWN_MS = 15 * 60 * 1000

type Found = Partial<Pick<PaymentRow, 'invoice_url' | 'stripe_payment_intent_id'>>

/** Rows looked up without success, each until its cool-down ends. */
const coolingDown = new ExpiringCache<true>(10_000)

/** Forgets the cool-downs (tests). */
export function resetDeferredLookupsForTests() {
  coolingDown.clear()
}

function missing(row: PaymentWithReferences): { url: boolean; paymentIntent: boolean } {
  if (row.provider === 'polar')
    return {
      url: row.status === 'succeeded' && !row.invoice_url && Boolean(row.polar_order_id),
      paymentIntent: false,
    }
  if (!row.stripe_invoice_id) return { url: false, paymentIntent: false }
  return {
    url: !row.invoice_url,
    // A failed invoice was not paid: there is no PaymentIntent that paid it to look up.
    paymentIntent: !row.stripe_payment_intent_id && row.amount > 0 && row.status !== 'failed',
  }
}

async function lookUp(
  row: PaymentWithReferences,
  need: ReturnType<typeof missing>,
): Promise<Found> {
  if (row.provider === 'polar' && row.polar_order_id) {
    const timeoutSeconds = REQUEST_TIMEOUT_MS / 1000
    return { invoice_url: await lookUpOrderInvoiceUrl(row.polar_order_id, { timeoutSeconds }) }
  }
  if (!row.stripe_invoice_id) return {}
  const options = { timeoutMs: REQUEST_TIMEOUT_MS }
  const [url, paymentIntent] = await Promise.all([
    need.url ? fetchHostedInvoiceUrl(row.stripe_invoice_id, options) : null,
    need.paymentIntent ? fetchInvoicePaymentIntentId(row.stripe_invoice_id, options) : null,
  ])
  return { invoice_url: url, stripe_payment_intent_id: paymentIntent }
}

/** Looks one row up and saves what was found (only into columns that are still empty). */
async function fillRow(row: PaymentWithReferences, need: ReturnType<typeof missing>) {
  coolingDown.set(row.id, true, Date.now() + COOLDOWN_MS)
  try {
    const found = await lookUp(row, need)
    const admin = database()
    for (const column of ['invoice_url', 'stripe_payment_intent_id'] as const) {
      const value = found[column]
      if (!value) continue
      const { error } = await admin
        .from('payment_history')
        .update(
          column === 'invoice_url' ? { invoice_url: value } : { stripe_payment_intent_id: value },
        )
        .eq('id', row.id)
        .is(column, null)
      if (error) throw databaseError('payment update', error)
    }
    if ((!need.url || found.invoice_url) && (!need.paymentIntent || found.stripe_payment_intent_id))
      coolingDown.delete(row.id)
    return found
  } catch (error) {
    logger.warn(
      {
        payment: row.id,
        provider: row.provider,
        order: row.polar_order_id ?? undefined,
        invoice: row.stripe_invoice_id ?? undefined,
        err: error,
      },
      'billing page: deferred provider lookup failed',
    )
    return {}
  }
}

/**
 * The page's payments (as shown: without their references) with what could be looked up
 * filled in (see above). Never throws; gives the payments as they are when nothing is
 * missing or nothing could be found.
 */
export async function fillDeferredLookups(rows: PaymentWithReferences[]): Promise<PaymentView[]> {
  const payments = rows.map((row): PaymentView => ({
    id: row.id,
    provider: row.provider,
    amount: row.amount,
    currency: row.currency,
    status: row.status,
    description: row.description,
    invoice_url: row.invoice_url,
    created_at: row.created_at,
  }))
  try {
    const due = rows
      .map((row) => ({ row, need: missing(row) }))
      .filter(({ row, need }) => (need.url || need.paymentIntent) && !coolingDown.get(row.id))
      .slice(0, MAX_LOOKUPS)
    if (due.length === 0) return payments

    const found = new Map<string, Found>()
    const lookups = Promise.all(
      due.map(async ({ row, need }) => found.set(row.id, await fillRow(row, need))),
    )
    // An unref'd timer: the page waits no longer, and the process never waits for it.
    await Promise.race([lookups, setTimeout(DEADLINE_MS, undefined, { ref: false })])
    return payments.map((payment) => {
      const url = found.get(payment.id)?.invoice_url
      return url && !payment.invoice_url ? { ...payment, invoice_url: url } : payment
    })
  } catch (error) {
    logger.warn({ err: error }, 'billing page: deferred provider lookups skipped')
    return payments
  }
}
