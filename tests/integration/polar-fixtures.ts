import { randomUUID } from 'node:crypto'

import { createPolar } from '@polar-sh/sdk/2026-10'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { signWebhook } from '../local-stack/polar'
import type { TestApp } from './harness'

/** Polar payloads in the wire format (snake_case), for hand-made Standard Webhooks events. */

const ORGANIZATION_ID = '5b0d3f4e-7c1a-4c4e-9f0a-000000000001'

export function customerObject(options: { id?: string; userId?: string | null } = {}) {
  return {
    id: options.id ?? randomUUID(),
    created_at: '2026-01-01T00:00:00Z',
    modified_at: null,
    metadata: options.userId ? { user_id: options.userId } : {},
    external_id: null,
    email: 'buyer@example.com',
    email_verified: true,
    type: 'individual',
    name: null,
    billing_name: null,
    billing_address: null,
    tax_id: null,
    locale: null,
    organization_id: ORGANIZATION_ID,
    default_payment_method_id: null,
    deleted_at: null,
    avatar_url: 'https://www.gravatar.com/avatar/x?d=404',
  }
}

export function productObject(options: { id?: string; name?: string | null } = {}) {
  return {
    id: options.id ?? catalogPlan('pro').polar.productId,
    created_at: '2026-01-01T00:00:00Z',
    modified_at: null,
    name: options.name === undefined ? 'Pro' : options.name,
    description: null,
    visibility: 'public',
    recurring_interval: 'month',
    recurring_interval_count: 1,
    is_recurring: true,
    is_archived: false,
    organization_id: ORGANIZATION_ID,
    metadata: {},
    prices: [],
    benefits: [],
    medias: [],
    attached_custom_fields: [],
  }
}

export interface SubscriptionOptions {
  id?: string
  status?: string
  customerId?: string
  productId?: string
  productName?: string | null
  /** user_id in the subscription's metadata (from the checkout). */
  userId?: string | null
  /** user_id in the customer's metadata. */
  customerUserId?: string | null
  interval?: string
  periodStart?: string
  periodEnd?: string
  cancelAtPeriodEnd?: boolean
  canceledAt?: string | null
  endsAt?: string | null
  endedAt?: string | null
}

export function subscriptionObject(options: SubscriptionOptions = {}) {
  const customerId = options.customerId ?? `${randomUUID()}`
  const productId = options.productId ?? catalogPlan('pro').polar.productId
  return {
    created_at: '2026-01-01T00:00:00Z',
    modified_at: null,
    id: options.id ?? randomUUID(),
    amount: 2900,
    currency: 'usd',
    recurring_interval: options.interval ?? 'month',
    recurring_interval_count: 1,
    status: options.status ?? 'active',
    current_period_start: options.periodStart ?? '2026-11-01T00:00:00Z',
    current_period_end: options.periodEnd ?? '2026-12-01T00:00:00Z',
    trial_start: null,
    trial_end: null,
    cancel_at_period_end: options.cancelAtPeriodEnd ?? false,
    canceled_at: options.canceledAt ?? null,
    started_at: '2026-11-01T00:00:00Z',
    ends_at: options.endsAt ?? null,
    ended_at: options.endedAt ?? null,
    customer_id: customerId,
    product_id: productId,
    discount_id: null,
    checkout_id: null,
    customer_cancellation_reason: null,
    customer_cancellation_comment: null,
    metadata: options.userId ? { user_id: options.userId } : {},
    custom_field_data: {},
    customer: customerObject({ id: customerId, userId: options.customerUserId }),
    product: productObject({ id: productId, name: options.productName }),
    discount: null,
    prices: [],
    meters: [],
    pending_update: null,
  }
}

export interface OrderOptions {
  id?: string
  subscriptionId?: string | null
  userId?: string | null
  netAmount?: number
  refundedAmount?: number
  currency?: string
  status?: string
  createdAt?: string
  productName?: string | null
  isInvoiceGenerated?: boolean
}

export function orderObject(options: OrderOptions = {}) {
  const customerId = randomUUID()
  const net = options.netAmount ?? 2900
  return {
    id: options.id ?? randomUUID(),
    created_at: options.createdAt ?? '2026-11-01T00:00:05Z',
    modified_at: null,
    status: options.status ?? 'paid',
    paid: true,
    subtotal_amount: net,
    discount_amount: 0,
    net_amount: net,
    tax_amount: 0,
    total_amount: net,
    refunded_amount: options.refundedAmount ?? 0,
    refunded_tax_amount: 0,
    currency: options.currency ?? 'usd',
    billing_reason: 'subscription_create',
    billing_name: 'Local Customer',
    billing_address: null,
    invoice_number: 'INV-1',
    is_invoice_generated: options.isInvoiceGenerated ?? false,
    customer_id: customerId,
    product_id: catalogPlan('pro').polar.productId,
    subscription_id: options.subscriptionId === undefined ? randomUUID() : options.subscriptionId,
    checkout_id: null,
    metadata: options.userId ? { user_id: options.userId } : {},
    customer: customerObject({ id: customerId }),
    product: productObject({ name: options.productName }),
    discount: null,
    items: [],
    description: 'Pro',
  }
}

/** The body Polar sends: `{type, timestamp, api_version, data}`. */
export function polarEvent(type: string, data: unknown, options: { timestamp?: string } = {}) {
  return {
    type,
    timestamp: options.timestamp ?? new Date().toISOString(),
    api_version: '2026-10',
    data,
  }
}

export interface PostOptions {
  /** webhook-id; a fresh one unless given (repeat it to re-deliver). */
  id?: string
  secret?: string
  /** webhook-timestamp in unix seconds. */
  timestamp?: number
  /** Replaces the signature header (null leaves it out). */
  signature?: string | null
  omit?: ('webhook-id' | 'webhook-timestamp' | 'webhook-signature')[]
  path?: string
}

/** POSTs a payload to the app's Polar webhook, signed the Standard Webhooks way. */
export async function postPolarEvent(
  appUrl: string,
  payload: string | object,
  options: PostOptions = {},
) {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload)
  const id = options.id ?? `msg_${randomUUID()}`
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000)
  const signature =
    options.signature === undefined
      ? signWebhook(options.secret ?? LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET, id, timestamp, body)
      : options.signature
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
  }
  if (signature !== null) headers['webhook-signature'] = signature
  for (const name of options.omit ?? []) delete headers[name]
  const response = await fetch(`${appUrl}${options.path ?? '/api/webhooks/polar'}`, {
    method: 'POST',
    headers,
    body,
  })
  return {
    id,
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
  }
}

/** GET /api/checkout with `params`, from the browser holding `cookie` (none: signed out). */
export const polarCheckout = (app: TestApp, params: Record<string, string>, cookie = '') =>
  fetch(`${app.url}/api/checkout?${new URLSearchParams(params)}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  })

export function emulatorPolar(app: TestApp) {
  return createPolar({
    accessToken: app.stack.env.POLAR_ACCESS_TOKEN,
    environment: 'sandbox',
    baseUrl: app.stack.polar.url,
  })
}

/** A paid checkout in the emulator for a user: the wire objects its events carry. */
export async function paidEmulatorCheckout(app: TestApp, userId: string) {
  const checkout = await emulatorPolar(app).checkouts.create({
    products: [catalogPlan('pro').polar.productId],
    metadata: { user_id: userId },
    // The user's own customer, as the app's checkout makes it (one customer per email).
    external_customer_id: userId,
    customer_email: `buyer-${userId}@example.com`,
    success_url: `${app.url}/success?checkout_id={CHECKOUT_ID}`,
  })
  return app.stack.polar.completeCheckout(checkout.id)
}
