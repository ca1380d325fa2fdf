import * as z from 'zod/mini'

import { rpc } from '~/lib/database/rpc.server'

import type { NewPayment, SubscriptionRow } from './types'

export interface LedgerEvent {
  provider: string
  id: string
  type: string
  occurredAt: string
}

const ledgerArgs = (event: LedgerEvent) => ({
  p_provider: event.provider,
  p_event_id: event.id,
  p_event_type: event.type,
  p_occurred_at: event.occurredAt,
})

const recorded = ['applied', 'duplicate', 'no_user', 'deleted_account'] as const
const applyResult = z.enum([...recorded, 'stale', 'superseded', 'duplicate_subscription'])
const paymentResult = z.enum([...recorded, 'exists', 'no_payment'])
const failureResult = z.enum(['notified', 'duplicate', 'no_user'])
export type ApplyResult = z.infer<typeof applyResult>
export type PaymentResult = z.infer<typeof paymentResult>

/** Records an event that has no effect (logged only), so repeats are recognisable. Returns false for a repeat. */
export function recordEvent(event: LedgerEvent) {
  return rpc('record_webhook_event', ledgerArgs(event))
}

/** Applies a subscription event to the user's row, exactly once and never over a newer one. */
export function applySubscriptionEvent(
  event: LedgerEvent,
  userId: string | null,
  fields: Partial<SubscriptionRow>,
) {
  return rpc(
    'apply_subscription_event',
    { ...ledgerArgs(event), p_user_id: userId, p_fields: fields },
    { result: applyResult },
  )
}

/** A provider's answer to a change made in the app, stamped with its time, never this server's. */
export function applyProviderAnswer(
  provider: string,
  what: string,
  userId: string,
  answer: { fields: Partial<SubscriptionRow>; occurredAt: string },
) {
  const { fields, occurredAt } = answer
  const id = `${what}:${userId}:${occurredAt}`
  const event = { provider, id, type: `${what}.subscription`, occurredAt }
  return applySubscriptionEvent(event, userId, fields)
}

/** Records a payment or refund once per payment and status, or a change of a recorded one. */
export function recordPaymentEvent(event: LedgerEvent, payment: Partial<NewPayment>) {
  return rpc(
    'record_payment_event',
    { ...ledgerArgs(event), p_payment: payment },
    { result: paymentResult },
  )
}

/** Records a failed payment in one transaction: its ledger row, dates, failed row and mail. */
export function recordPaymentFailure(
  event: LedgerEvent,
  userId: string | null,
  details: {
    invoice_id: string
    attempt: number | null
    amount: number
    currency: string
    invoice_url: string | null
    /** When the provider tries the payment again (null: no retry planned). */
    retry_at: string | null
  },
  payment: NewPayment,
) {
  return rpc(
    'record_payment_failure',
    { ...ledgerArgs(event), p_user_id: userId, p_data: details, p_payment: payment },
    { result: failureResult },
  )
}
