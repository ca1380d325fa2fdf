import { setTimeout } from 'node:timers/promises'

import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { ExpiringCache } from '~/lib/server/expiring-cache'
import { logger } from '~/lib/server/logger.server'
import type { PaymentView, PaymentWithReferences } from '~/subscriptions/billing-overview.server'

import type { PaymentFill } from './provider'
import { billingProvider } from './registry.server'

/**
 * Lookups a webhook deferred (`paymentLookup`), made and bounded when the owner opens the
 * billing page (docs/webhooks.md, "Lookups that can wait").
 */
export const MAX_LOOKUPS = 3
const DEADLINE_MS = 2500
const REQUEST_TIMEOUT_MS = 2000
const COOLDOWN_MS = 15 * 60 * 1000

const coolingDown = new ExpiringCache<true>(10_000)

export function resetDeferredLookupsForTests() {
  coolingDown.clear()
}

/** Looks one row up and saves what was found (only into columns that are still empty). */
async function fillRow(row: PaymentWithReferences, lookUp: () => Promise<PaymentFill>) {
  coolingDown.set(row.id, true, Date.now() + COOLDOWN_MS)
  try {
    const found = await lookUp()
    const { error } = await database().rpc('fill_payment_details', {
      p_payment_id: row.id,
      p_fields: found,
    })
    if (error) throw databaseError('payment update', error)
    // Still missing something: tried again after the cool-down.
    const filled = Object.fromEntries(Object.entries(found).filter(([, value]) => value))
    if (!billingProvider(row.provider)?.paymentLookup({ ...row, ...filled }, 0))
      coolingDown.delete(row.id)
    return found
  } catch (error) {
    logger.warn(
      { payment: row.id, provider: row.provider, err: error },
      'billing page: deferred provider lookup failed',
    )
    return {}
  }
}

/** The page's payments (without their references), with what could be looked up; never throws. */
export async function fillDeferredLookups(rows: PaymentWithReferences[]): Promise<PaymentView[]> {
  const payments = rows.map((row) =>
    Object.fromEntries(Object.entries(row).filter(([key]) => !key.endsWith('_id'))),
  ) as PaymentView[]
  try {
    const due = rows
      .filter((row) => !coolingDown.get(row.id))
      .flatMap((row) => {
        const lookUp = billingProvider(row.provider)?.paymentLookup(row, REQUEST_TIMEOUT_MS)
        return lookUp ? [{ row, lookUp }] : []
      })
      .slice(0, MAX_LOOKUPS)
    if (due.length === 0) return payments

    const found = new Map<string, PaymentFill>()
    const lookups = Promise.all(
      due.map(async ({ row, lookUp }) => found.set(row.id, await fillRow(row, lookUp))),
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
