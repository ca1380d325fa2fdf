import Stripe from 'stripe'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { LOCAL_DEFAULTS } from '../../app/env.server'

/** Stripe payloads in the shape of API version 2026-10-28.endive, for hand-made events. */
let counter = 0
const nextId = (prefix: string) =>
  `${prefix}_test${Date.now().toString(36)}${(++counter).toString(36)}`

export function subscriptionObject(options: {
  id?: string
  userId?: string
  customer?: string
  status?: string
  price?: string
  cancelAtPeriodEnd?: boolean
  periodStart?: number
  periodEnd?: number
  canceledAt?: number | null
  feedback?: string | null
}) {
  const start = options.periodStart ?? 1_780_000_000
  return {
    id: options.id ?? nextId('sub'),
    object: 'subscription',
    customer: options.customer ?? 'cus_test',
    status: options.status ?? 'active',
    cancel_at_period_end: options.cancelAtPeriodEnd ?? false,
    cancel_at: options.cancelAtPeriodEnd ? (options.periodEnd ?? start + 2_592_000) : null,
    canceled_at: options.canceledAt ?? null,
    cancellation_details: {
      reason: options.feedback ? 'cancellation_requested' : null,
      feedback: options.feedback ?? null,
      comment: null,
    },
    trial_start: null,
    trial_end: null,
    metadata: options.userId ? { user_id: options.userId, user_email: 'x@example.com' } : {},
    items: {
      object: 'list',
      data: [
        {
          id: nextId('si'),
          object: 'subscription_item',
          current_period_start: start,
          current_period_end: options.periodEnd ?? start + 2_592_000,
          price: {
            id: options.price ?? catalogPlan('pro').stripe.priceId,
            object: 'price',
            nickname: null,
            recurring: { interval: 'month', interval_count: 1 },
          },
        },
      ],
    },
  }
}

export function invoiceObject(options: {
  subscription?: string | null
  userId?: string
  customer?: string
  amount?: number
  id?: string
}) {
  return {
    id: options.id ?? nextId('in'),
    object: 'invoice',
    customer: options.customer ?? 'cus_test',
    amount_paid: options.amount ?? 2900,
    currency: 'usd',
    status: 'paid',
    created: 1_780_000_100,
    hosted_invoice_url: 'https://invoice.example/in_1',
    parent: options.subscription
      ? {
          type: 'subscription_details',
          subscription_details: {
            subscription: options.subscription,
            metadata: options.userId ? { user_id: options.userId } : {},
          },
        }
      : null,
    lines: {
      object: 'list',
      data: [
        { pricing: { price_details: { price: catalogPlan('pro').stripe.priceId } }, parent: null },
      ],
    },
  }
}

export function stripeEvent(
  type: string,
  object: unknown,
  options: { id?: string; created?: number } = {},
) {
  return {
    id: options.id ?? nextId('evt'),
    object: 'event',
    api_version: '2026-10-28.endive',
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  }
}

/** POSTs a payload to the app's Stripe webhook, signed by the real SDK's test helper. */
export async function postStripeEvent(
  appUrl: string,
  payload: string | object,
  options: {
    secret?: string
    timestamp?: number
    header?: string | null
    headerName?: string
    path?: string
  } = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const signature =
    options.header === undefined
      ? Stripe.webhooks.generateTestHeaderString({
          payload: body,
          secret: options.secret ?? LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
          timestamp: options.timestamp,
        })
      : options.header
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (signature !== null) headers[options.headerName ?? 'stripe-signature'] = signature
  const response = await fetch(`${appUrl}${options.path ?? '/api/webhooks/stripe'}`, {
    method: 'POST',
    headers,
    body,
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}
