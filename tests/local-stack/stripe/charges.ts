/**
 * Charges, refunds and disputes. A PaymentIntent that succeeds makes a Charge
 * (`latest_charge`); a refund (`POST /v1/refunds`, or the emulator's payments page, as an
 * operator refunds in Stripe's dashboard) sends `refund.created` and `charge.refunded` with
 * the Charge and its refunded total; a dispute (the emulator's trigger: Stripe's test cards
 * for disputes need a real card network) sends `charge.dispute.created` and, once it is
 * decided, `charge.dispute.closed` (docs.stripe.com/api/events/types; object shapes as
 * Stripe's fixtures3.json `charge`, `refund`, `dispute`).
 */
import { type EventRequest, NO_REQUEST } from './events'
import { invalid, noSuch, randomId, StripeApiError } from './http'
import type { PaymentIntentObject } from './payment-objects'
import type { BillingContext } from './subscriptions'

export interface ChargeObject {
  id: string
  object: 'charge'
  amount: number
  amount_refunded: number
  currency: string
  customer: string | null
  disputed: boolean
  payment_intent: string
  refunded: boolean
  [key: string]: unknown
}

export interface DisputeObject {
  id: string
  object: 'dispute'
  amount: number
  charge: string
  payment_intent: string
  status: string
  [key: string]: unknown
}

/** Dispute statuses that end a dispute (Stripe's `charge.dispute.closed`). */
export const CLOSED_DISPUTE_STATUSES = ['won', 'lost', 'warning_closed', 'prevented']

/** The Charge of a PaymentIntent that just succeeded (its `latest_charge`). */
export function recordCharge(ctx: BillingContext, intent: PaymentIntentObject) {
  const id = intent.latest_charge ?? randomId('ch')
  const charge: ChargeObject = {
    id,
    object: 'charge',
    amount: intent.amount,
    amount_captured: intent.amount,
    amount_refunded: 0,
    balance_transaction: null,
    billing_details: { address: null, email: null, name: null, phone: null },
    captured: true,
    created: ctx.store.now(),
    currency: intent.currency as string,
    customer: (intent.customer as string | null) ?? null,
    description: intent.description ?? null,
    disputed: false,
    failure_code: null,
    failure_message: null,
    livemode: false,
    metadata: {},
    outcome: { network_status: 'approved_by_network', type: 'authorized' },
    paid: true,
    payment_intent: intent.id,
    payment_method: intent.payment_method,
    receipt_url: `${ctx.publicUrl}/receipts/${id}`,
    refunded: false,
    status: 'succeeded',
  }
  intent.latest_charge = id
  ctx.store.charges.set(id, charge)
  return charge
}

/** The charge a refund or dispute names: by `charge`, else the PaymentIntent's latest one. */
export function chargeOf(ctx: BillingContext, ids: { charge?: string; paymentIntent?: string }) {
  if (ids.charge)
    return ctx.store.charges.get(ids.charge) ?? fail(noSuch('charge', ids.charge, 'charge'))
  if (!ids.paymentIntent) {
    throw invalid(
      'One of the following params should be provided for this request: payment_intent or charge.',
    )
  }
  const intent = ctx.store.paymentIntents.get(ids.paymentIntent)
  if (!intent) throw noSuch('payment_intent', ids.paymentIntent, 'payment_intent')
  const charge = intent.latest_charge ? ctx.store.charges.get(intent.latest_charge) : undefined
  if (!charge) {
    throw invalid(
      `This PaymentIntent (${intent.id}) does not have a successful charge to refund.`,
      'payment_intent',
    )
  }
  return charge
}

/** Refunds `amount` (default: what is left) of a charge: `refund.created`, then `charge.refunded`. */
export function refundCharge(
  ctx: BillingContext,
  charge: ChargeObject,
  amount: number | undefined,
  request: EventRequest = NO_REQUEST,
) {
  const left = charge.amount - charge.amount_refunded
  if (left <= 0) {
    throw invalid(
      `Charge ${charge.id} has already been refunded.`,
      undefined,
      'charge_already_refunded',
    )
  }
  const refunded = amount ?? left
  if (!Number.isInteger(refunded) || refunded <= 0)
    throw invalid('Invalid positive integer', 'amount')
  if (refunded > left) {
    throw invalid(
      `Refund amount (${refunded}) is greater than unrefunded amount on charge (${left})`,
      'amount',
      'amount_too_large',
    )
  }
  const refund = {
    id: randomId('re'),
    object: 'refund',
    amount: refunded,
    balance_transaction: null,
    charge: charge.id,
    created: ctx.store.now(),
    currency: charge.currency,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: null,
    status: 'succeeded',
  }
  ctx.store.refunds.set(refund.id, refund)
  charge.amount_refunded += refunded
  charge.refunded = charge.amount_refunded >= charge.amount
  ctx.bus.emit('refund.created', refund, request)
  ctx.bus.emit('charge.refunded', charge, request, {
    amount_refunded: charge.amount_refunded - refunded,
  })
  return refund
}

/** A cardholder disputes a charge: `charge.dispute.created` (status `needs_response`). */
export function openDispute(ctx: BillingContext, charge: ChargeObject, reason = 'fraudulent') {
  const now = ctx.store.now()
  const dispute: DisputeObject = {
    id: randomId('dp'),
    object: 'dispute',
    amount: charge.amount - charge.amount_refunded,
    balance_transactions: [],
    charge: charge.id,
    created: now,
    currency: charge.currency,
    evidence: {},
    evidence_details: {
      due_by: now + 7 * 86_400,
      has_evidence: false,
      past_due: false,
      submission_count: 0,
    },
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason,
    status: 'needs_response',
  }
  charge.disputed = true
  ctx.store.disputes.set(dispute.id, dispute)
  ctx.bus.emit('charge.dispute.created', dispute)
  return dispute
}

/** The dispute is decided (`won` or `lost`; `POST /v1/disputes/:id/close` accepts it: lost). */
export function closeDispute(
  ctx: BillingContext,
  disputeId: string,
  status: string,
  request: EventRequest = NO_REQUEST,
) {
  const dispute = ctx.store.disputes.get(disputeId) ?? fail(noSuch('dispute', disputeId))
  if (CLOSED_DISPUTE_STATUSES.includes(dispute.status)) {
    throw invalid(`This dispute is already closed (${dispute.status}).`)
  }
  dispute.status = status
  ctx.bus.emit('charge.dispute.closed', dispute, request, { status: 'needs_response' })
  return dispute
}

function fail(error: StripeApiError): never {
  throw error
}
