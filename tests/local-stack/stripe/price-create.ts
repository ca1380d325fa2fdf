/**
 * `POST /v1/prices`: recurring per-unit prices, for an existing product or a new one
 * (`product_data`), refused with Stripe's `invalid_request_error` bodies (message, `param`,
 * `code`). Emits `product.created` (for `product_data`) and `price.created`.
 */
import { buildPrice, buildProduct } from './catalog-objects'
import { field, metadata, text } from './checkout'
import { STRIPE_CURRENCIES } from './currencies'
import type { EventRequest } from './events'
import { invalid, missingParam, type Param, type Params, randomId, StripeApiError } from './http'
import type { PriceObject } from './objects'
import type { BillingContext } from './subscriptions'

const words = (list: string) => list.trim().split(/\s+/)

/** Parameters Stripe takes, and which of them the emulator implements. */
const PARAMS = {
  price: {
    emulated: words(`active currency expand lookup_key metadata nickname product product_data
      recurring tax_behavior transfer_lookup_key unit_amount`),
    real: words(`billing_scheme currency_options custom_unit_amount tiers tiers_mode
      transform_quantity unit_amount_decimal`),
  },
  recurring: { emulated: words('interval interval_count'), real: words('meter usage_type') },
  product_data: {
    emulated: words('active metadata name'),
    real: words('id statement_descriptor tax_code tax_details unit_label'),
  },
}
const INTERVALS = ['day', 'month', 'week', 'year'] as const
/** Stripe's longest billing interval is three years. */
const MAX_INTERVAL_COUNT = { day: 1095, week: 156, month: 36, year: 3 }
const TAX_BEHAVIORS = ['exclusive', 'inclusive', 'unspecified'] as const
const MAX_UNIT_AMOUNT = 99_999_999

export function createPrice(ctx: BillingContext, params: Params, request: EventRequest) {
  checkKnown(params, PARAMS.price)
  const currency = text(params.currency)?.toLowerCase()
  if (!currency) throw missingParam('currency')
  if (!STRIPE_CURRENCIES.includes(currency)) {
    throw invalid(
      `Invalid currency: ${currency}. Stripe currently supports these currencies: ${STRIPE_CURRENCIES.join(', ')}`,
      'currency',
    )
  }
  const productId = productParam(ctx, params)
  const unitAmount = integerParam(params.unit_amount, 'unit_amount', 0, MAX_UNIT_AMOUNT)
  if (unitAmount === undefined) throw missingParam('unit_amount')
  const recurring = recurringParam(params.recurring)
  const lookupKey = text(params.lookup_key) ?? null
  const holder = lookupKey ? priceWithLookupKey(ctx, lookupKey) : undefined
  if (holder && booleanParam(params.transfer_lookup_key, 'transfer_lookup_key') !== true) {
    throw invalid(`A price (\`${holder.id}\`) already uses that lookup key.`, 'lookup_key')
  }
  const price = buildPrice({
    id: randomId('price'),
    product: productId ?? randomId('prod', 14),
    currency,
    unitAmount,
    interval: recurring.interval,
    intervalCount: recurring.intervalCount,
    nickname: text(params.nickname) ?? null,
    lookupKey,
    metadata: metadata(params.metadata),
    active: booleanParam(params.active, 'active') ?? true,
    taxBehavior: enumParam(params.tax_behavior, 'tax_behavior', TAX_BEHAVIORS) ?? 'unspecified',
    created: ctx.store.now(),
  })
  // Everything is valid: only now is anything written.
  if (!productId) createInlineProduct(ctx, price, params.product_data, request)
  if (holder) holder.lookup_key = null
  ctx.store.prices.set(price.id, price)
  ctx.bus.emit('price.created', price, request)
  return price
}

/** The existing product's id, or undefined when `product_data` describes a new one. */
function productParam(ctx: BillingContext, params: Params) {
  const productId = text(params.product)
  if (productId && params.product_data !== undefined) {
    throw invalid(
      'You may only specify one of these parameters: product, product_data.',
      'product_data',
    )
  }
  if (productId) return ctx.store.product(productId, 'product').id
  if (params.product_data === undefined) {
    throw invalid(
      'You must specify either `product` or `product_data` when creating a price.',
      'product',
    )
  }
  checkKnown(params.product_data, PARAMS.product_data, 'product_data')
  if (!text(field(params.product_data, 'name'))) throw missingParam('product_data[name]')
  booleanParam(field(params.product_data, 'active'), 'product_data[active]')
  return undefined
}

function createInlineProduct(
  ctx: BillingContext,
  price: PriceObject,
  data: Param | undefined,
  request: EventRequest,
) {
  const product = buildProduct({
    id: price.product,
    name: text(field(data, 'name')) ?? '',
    description: null,
    defaultPrice: null,
    features: [],
    metadata: metadata(field(data, 'metadata')),
    active: booleanParam(field(data, 'active'), 'product_data[active]') ?? true,
    created: price.created as number,
  })
  ctx.store.products.set(product.id, product)
  ctx.bus.emit('product.created', product, request)
}

function recurringParam(value: Param | undefined) {
  if (value === undefined) {
    throw invalid(
      'The local Stripe emulator only supports recurring prices: pass `recurring[interval]`.',
      'recurring',
    )
  }
  checkKnown(value, PARAMS.recurring, 'recurring')
  const interval = enumParam(field(value, 'interval'), 'recurring[interval]', INTERVALS)
  if (!interval) throw missingParam('recurring[interval]')
  const max = MAX_INTERVAL_COUNT[interval]
  const count = integerParam(field(value, 'interval_count'), 'recurring[interval_count]', 1, max)
  return { interval, intervalCount: count ?? 1 }
}

function priceWithLookupKey(ctx: BillingContext, lookupKey: string) {
  return [...ctx.store.prices.values()].find((price) => price.lookup_key === lookupKey)
}

/**
 * Unknown parameters are refused as Stripe refuses them (`parameter_unknown`); parameters
 * Stripe has but the emulator does not implement are refused with a message that says so.
 */
export function checkKnown(
  value: Param,
  known: { emulated: string[]; real: string[] },
  prefix = '',
) {
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`Invalid object`, prefix || undefined)
  }
  for (const key of Object.keys(value)) {
    const name = prefix ? `${prefix}[${key}]` : key
    if (known.emulated.includes(key)) continue
    if (known.real.includes(key)) {
      throw invalid(`The local Stripe emulator does not support \`${name}\`.`, name)
    }
    throw invalid(`Received unknown parameter: ${name}`, name, 'parameter_unknown')
  }
}

function integerParam(value: Param | undefined, name: string, min: number, max: number) {
  if (value === undefined) return undefined
  const raw = typeof value === 'string' ? value : ''
  if (!/^-?\d+$/.test(raw)) {
    throw new StripeApiError(
      400,
      'invalid_request_error',
      `Invalid integer: ${raw}`,
      'parameter_invalid_integer',
      name,
    )
  }
  const number = Number(raw)
  if (number < min) throw invalid(`This value must be greater than or equal to ${min}.`, name)
  if (number > max) throw invalid(`This value must be less than or equal to ${max}.`, name)
  return number
}

function booleanParam(value: Param | undefined, name: string) {
  if (value === undefined) return undefined
  if (value !== 'true' && value !== 'false')
    throw invalid(`Invalid boolean: ${String(value)}`, name)
  return value === 'true'
}

function enumParam<T extends string>(
  value: Param | undefined,
  name: string,
  allowed: readonly T[],
) {
  if (value === undefined) return undefined
  const found = allowed.find((option) => option === value)
  if (found) return found
  const options = `${allowed.slice(0, -1).join(', ')}, or ${allowed[allowed.length - 1]}`
  throw invalid(`Invalid ${name}: must be one of ${options}`, name)
}
