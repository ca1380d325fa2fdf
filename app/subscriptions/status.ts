import { formatDate } from '~/lib/pages/format'

import type { SubscriptionRow } from './types'

/** Human label for any subscription or payment status, including ones we do not special-case. */
export function statusLabel(status: string | null | undefined) {
  if (!status) return 'No subscription'
  // The rest read as their words: past_due is "Past due".
  const known: Record<string, string> = {
    trialing: 'Trial',
    incomplete_expired: 'Expired',
    succeeded: 'Paid',
  }
  return known[status] ?? status.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase())
}

/** Statuses in which a subscription still gives access (a second purchase makes no sense). */
const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due'])

/** A payment's status as shown: its refunded total decides, whichever provider refunded it. */
export const paymentStatus = (p: { status: string; amount: number; amount_refunded: number }) =>
  !p.amount_refunded ? p.status : p.amount_refunded < p.amount ? 'partially_refunded' : 'refunded'

export function isLiveStatus(status: string | null | undefined) {
  return Boolean(status && LIVE_STATUSES.has(status))
}

/** Live and paid up (not past due): the plan of such a subscription can be changed. */
export function isPaidUpStatus(status: string | null | undefined) {
  return status === 'active' || status === 'trialing'
}

/** What the past-due wording needs: the row's dates, its provider's `pastDueHelp`, the amounts. */
export type PastDueFacts = Pick<SubscriptionRow, 'payment_failed_at' | 'payment_retry_at'> & {
  help?: string | null
  owed?: string
  payNow?: string
}

/** The retry's date while it is ahead and the provider says when, else null. */
const retryAhead = ({ payment_retry_at: at }: PastDueFacts, now: number) =>
  at && Date.parse(at) > now ? formatDate(at) : null

/**
 * The one summary of a failed renewal, wherever past due shows (dashboard, billing and
 * pricing): "Your payment of $29.00 on … did not go through; we will retry on …" (no final period).
 */
export function pastDueSummary(facts: PastDueFacts, now = Date.now()) {
  const of = facts.owed ? ` of ${facts.owed}` : ''
  if (!facts.payment_failed_at) return `Your last payment${of} did not go through`
  const failed = `Your payment${of} on ${formatDate(facts.payment_failed_at)} did not go through`
  const retry = retryAhead(facts, now)
  return retry ? `${failed}; we will retry on ${retry}` : failed
}

/** The summary and what the subscriber can do about it (after a new card, pay `payNow`). */
export function pastDueNotice(facts: PastDueFacts, now = Date.now()) {
  const retry = retryAhead(facts, now)
  if (facts.payNow)
    return `Your new card is saved. Pay the ${facts.payNow} now, or we will retry ${retry ? `on ${retry}` : 'soon'}.`
  const next = facts.help ?? 'Update your payment method to keep your plan.'
  return `${pastDueSummary(facts, now)}. ${next}`
}

export const PAYMENT_METHOD_INTENT = 'update_payment_method'
