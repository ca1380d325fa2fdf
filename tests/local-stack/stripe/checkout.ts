import { type EventRequest, NO_REQUEST } from './events'
import { invalid, missingParam, type Param, type Params } from './http'
import {
  type CheckoutSessionObject,
  makeCheckoutSession,
  makeLineItem,
  type Metadata,
} from './objects'
import { saveCard } from './payment-objects'
import type { StripeEvent } from './store'
import {
  announceSubscription,
  type BillingContext,
  createCustomer,
  openSubscription,
} from './subscriptions'

export function createCheckoutSession(ctx: BillingContext, params: Params) {
  const mode = text(params.mode)
  if (!mode) throw missingParam('mode')
  if (mode !== 'subscription') {
    throw invalid(`The emulator only supports mode=subscription (got '${mode}').`, 'mode')
  }
  const rawItems = Array.isArray(params.line_items) ? params.line_items : []
  if (rawItems.length === 0) {
    throw invalid(
      'You must provide at least one recurring price in `subscription` mode when using prices.',
      'line_items',
    )
  }
  const lineItems = rawItems.map((raw, index) => {
    const item = typeof raw === 'object' && !Array.isArray(raw) ? raw : {}
    const priceId = text(item.price)
    if (!priceId) throw missingParam(`line_items[${index}][price]`)
    const price = ctx.store.price(priceId, `line_items[${index}][price]`)
    const quantity = Number(text(item.quantity) ?? '1')
    if (!Number.isInteger(quantity) || quantity < 1) {
      throw invalid(
        'Invalid integer: quantity must be at least 1',
        `line_items[${index}][quantity]`,
      )
    }
    return makeLineItem(ctx.store, price, quantity)
  })
  const customerId = text(params.customer) ?? null
  if (customerId) ctx.store.customer(customerId, 'customer')
  const customerEmail = text(params.customer_email) ?? null
  if (customerId && customerEmail) {
    throw invalid(
      'You may only specify one of these parameters: customer, customer_email.',
      'customer_email',
    )
  }
  requireTaxActive(ctx, params)
  requireTaxAddress(ctx, params, customerId)
  const successUrl = text(params.success_url) ?? null
  if (!successUrl) throw missingParam('success_url')
  const session = makeCheckoutSession({
    mode,
    customer: customerId,
    customer_email: customerEmail,
    client_reference_id: text(params.client_reference_id) ?? null,
    metadata: metadata(params.metadata),
    success_url: successUrl,
    cancel_url: text(params.cancel_url) ?? null,
    amount_total: lineItems.reduce((sum, item) => sum + item.price.unit_amount * item.quantity, 0),
    currency: lineItems[0].price.currency,
    automaticTax: text(field(params.automatic_tax, 'enabled')) === 'true',
    allowPromotionCodes:
      params.allow_promotion_codes === undefined
        ? null
        : text(params.allow_promotion_codes) === 'true',
    now: ctx.store.now(),
    publicUrl: ctx.publicUrl,
  })
  ctx.store.checkoutSessions.set(session.id, session)
  ctx.store.checkoutExtras.set(session.id, {
    lineItems,
    subscriptionMetadata: metadata(field(params.subscription_data, 'metadata')),
  })
  return session
}

/** Automatic tax needs Stripe Tax set up (`taxActive`), else `stripe_tax_inactive`. */
function requireTaxActive(ctx: BillingContext, params: Params) {
  if (text(field(params.automatic_tax, 'enabled')) !== 'true') return
  if (ctx.store.account.taxActive) return
  throw invalid(
    'Stripe Tax has not been activated on your account. Please visit https://dashboard.stripe.com/settings/tax/activate to get started.',
    undefined,
    'stripe_tax_inactive',
  )
}

/** Automatic tax for a customer without an address needs `customer_update[address]=auto`. */
function requireTaxAddress(ctx: BillingContext, params: Params, customerId: string | null) {
  if (!customerId || text(field(params.automatic_tax, 'enabled')) !== 'true') return
  if (ctx.store.customer(customerId).address) return
  const update = params.customer_update
  if (text(field(update, 'address')) === 'auto' || text(field(update, 'shipping')) === 'auto')
    return
  throw invalid(
    "Automatic tax calculation in Checkout requires a valid address on the Customer. Add a valid address to the Customer or set either `customer_update[address]` to 'auto' or `customer_update[shipping]` to 'auto' to save the address entered in Checkout to the Customer.",
    'customer_update[address]',
  )
}

export interface CardDetails {
  number: string
  email?: string
  name?: string
}

export type CheckoutResult =
  | { ok: true; session: CheckoutSessionObject; events: StripeEvent[]; redirectTo: string }
  | { ok: false; message: string; code: string }

/** Stripe's test cards: 4242… and other valid numbers succeed, 4000…0002 and …9995 decline. */
export function checkCard(
  number: string,
): { ok: true } | { ok: false; message: string; code: string } {
  const digits = number.replace(/[\s-]/g, '')
  if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) {
    return { ok: false, message: 'Your card number is incorrect.', code: 'incorrect_number' }
  }
  if (digits === '4000000000000002') {
    return { ok: false, message: 'Your card was declined.', code: 'card_declined' }
  }
  if (digits === '4000000000009995') {
    return { ok: false, message: 'Your card has insufficient funds.', code: 'card_declined' }
  }
  return { ok: true }
}

/**
 * Pays an open session as Stripe does: the subscription is created `incomplete` and becomes
 * `active` once its first invoice is paid, then `checkout.session.completed`.
 */
export function completeCheckout(
  ctx: BillingContext,
  sessionId: string,
  card: CardDetails,
  request: EventRequest = NO_REQUEST,
): CheckoutResult {
  const session = ctx.store.checkoutSession(sessionId)
  if (session.status !== 'open' || session.expires_at <= ctx.store.now()) {
    return {
      ok: false,
      message: 'This Checkout Session is no longer active.',
      code: 'session_inactive',
    }
  }
  const cardCheck = checkCard(card.number)
  if (!cardCheck.ok) return cardCheck
  const extras = ctx.store.checkoutExtras.get(session.id)
  if (!extras) throw new Error(`checkout session ${session.id} has no line items`)
  const eventsBefore = ctx.store.events.size
  const email = session.customer
    ? ctx.store.customer(session.customer).email
    : (session.customer_email ?? card.email ?? null)
  const name = card.name?.trim() || null
  const customer = session.customer
    ? ctx.store.customer(session.customer)
    : createCustomer(ctx, { email, name }, request)
  const [first] = extras.lineItems
  const { subscription, invoice } = openSubscription(ctx, {
    customer: customer.id,
    price: first.price,
    quantity: first.quantity,
    metadata: extras.subscriptionMetadata,
    automaticTax: (session.automatic_tax as { enabled: boolean }).enabled,
    now: ctx.store.now(),
  })
  // Checkout makes the card it collected the subscription's default payment method.
  subscription.default_payment_method = saveCard(ctx.store, card.number, customer.id)
  subscription.status = 'incomplete'
  announceSubscription(ctx, subscription, invoice, request)
  subscription.status = 'active'
  ctx.bus.emit('customer.subscription.updated', subscription, request, { status: 'incomplete' })
  Object.assign(session, {
    status: 'complete',
    payment_status: 'paid',
    customer: customer.id,
    customer_details: {
      address: null,
      business_name: null,
      email,
      individual_name: null,
      name,
      phone: null,
      tax_exempt: 'none',
      tax_ids: [],
    },
    subscription: subscription.id,
    invoice: invoice.id,
    url: null,
  })
  ctx.bus.emit('checkout.session.completed', session, request)
  const events = [...ctx.store.events.values()].slice(eventsBefore)
  const redirectTo = (session.success_url ?? '').replaceAll('{CHECKOUT_SESSION_ID}', session.id)
  return { ok: true, session, events, redirectTo }
}

function luhn(digits: string) {
  let sum = 0
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2
    sum += digit
  }
  return sum % 10 === 0
}

export function text(value: Param | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

export function field(value: Param | undefined, key: string): Param | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? value[key] : undefined
}

export function metadata(value: Param | undefined): Metadata {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  )
  return Object.fromEntries(entries)
}
