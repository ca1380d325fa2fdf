/** Charges, refunds and disputes (a trigger: dispute test cards need a real card network). */
import { type EventRequest, NO_REQUEST } from './events'
import { invalid, noSuch, randomId } from './http'
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

/** The Charge of a PaymentIntent that just succeeded (its `latest_charge`). */
export function recordCharge(ctx: BillingContext, intent: PaymentIntentObject) {
  const id = intent.latest_charge ?? randomId('ch')
  const charge: ChargeObject = {
    id,
    object: 'charge',
    amount: intent.amount,
    amount_refunded: 0,
    created: ctx.store.now(),
    currency: intent.currency as string,
    customer: (intent.customer as string | null) ?? null,
    disputed: false,
    livemode: false,
    metadata: {},
    paid: true,
    payment_intent: intent.id,
    payment_method: intent.payment_method,
    refunded: false,
    status: 'succeeded',
  }
  intent.latest_charge = id
  ctx.store.charges.set(id, charge)
  return charge
}

/** The charge a refund or dispute names: by `charge`, else the PaymentIntent's latest one. */
export function chargeOf(ctx: BillingContext, ids: { charge?: string; paymentIntent?: string }) {
  if (ids.charge) {
    const charge = ctx.store.charges.get(ids.charge)
    if (!charge) throw noSuch('charge', ids.charge, 'charge')
    return charge
  }
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
    charge: charge.id,
    created: ctx.store.now(),
    currency: charge.currency,
    payment_intent: charge.payment_intent,
    status: 'succeeded',
  }
  charge.amount_refunded += refunded
  charge.refunded = charge.amount_refunded >= charge.amount
  ctx.bus.emit('refund.created', refund, request)
  ctx.bus.emit('charge.refunded', charge, request, {
    amount_refunded: charge.amount_refunded - refunded,
  })
  return refund
}

/** A cardholder disputes a charge: `charge.dispute.created` (status `needs_response`). */
export function openDispute(ctx: BillingContext, charge: ChargeObject) {
  const dispute: DisputeObject = {
    id: randomId('dp'),
    object: 'dispute',
    amount: charge.amount - charge.amount_refunded,
    charge: charge.id,
    created: ctx.store.now(),
    currency: charge.currency,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: 'fraudulent',
    status: 'needs_response',
  }
  charge.disputed = true
  ctx.store.disputes.set(dispute.id, dispute)
  ctx.bus.emit('charge.dispute.created', dispute)
  return dispute
}

export function closeDispute(ctx: BillingContext, disputeId: string, status: string) {
  const dispute = ctx.store.disputes.get(disputeId)
  if (!dispute) throw noSuch('dispute', disputeId)
  if (dispute.status !== 'needs_response') {
    throw invalid(`This dispute is already closed (${dispute.status}).`)
  }
  dispute.status = status
  ctx.bus.emit('charge.dispute.closed', dispute, NO_REQUEST, { status: 'needs_response' })
  return dispute
}
