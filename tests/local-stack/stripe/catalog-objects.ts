/** Products, prices and the legacy plan object, built from the plan catalogue. */
import type { CatalogPlan } from '../catalog'
import type { Metadata, PriceObject, ProductObject } from './objects'

export interface NewProduct {
  id: string
  name: string
  description: string | null
  defaultPrice: string | null
  features: string[]
  metadata: Metadata
  active: boolean
  created: number
}

export function buildProduct(input: NewProduct): ProductObject {
  return {
    id: input.id,
    object: 'product',
    active: input.active,
    created: input.created,
    default_price: input.defaultPrice,
    description: input.description,
    images: [],
    livemode: false,
    marketing_features: input.features.map((name) => ({ name })),
    metadata: { ...input.metadata },
    name: input.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: input.created,
    url: null,
  }
}

export interface NewPrice {
  id: string
  product: string
  currency: string
  unitAmount: number
  interval: PriceObject['recurring']['interval']
  intervalCount: number
  nickname: string | null
  lookupKey: string | null
  metadata: Metadata
  active: boolean
  taxBehavior: 'exclusive' | 'inclusive' | 'unspecified'
  created: number
}

export function buildPrice(input: NewPrice): PriceObject {
  return {
    id: input.id,
    object: 'price',
    active: input.active,
    billing_scheme: 'per_unit',
    created: input.created,
    currency: input.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: input.lookupKey,
    metadata: { ...input.metadata },
    nickname: input.nickname,
    product: input.product,
    recurring: {
      interval: input.interval,
      interval_count: input.intervalCount,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: input.taxBehavior,
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: input.unitAmount,
    unit_amount_decimal: String(input.unitAmount),
  }
}

/** A plan's seeded product (its `stripe.productId`). */
export function makeProduct(id: string, plan: CatalogPlan, priceId: string, created: number) {
  return buildProduct({
    id,
    name: plan.name,
    description: plan.description,
    defaultPrice: priceId,
    features: plan.features,
    metadata: { plan: plan.key },
    active: true,
    created,
  })
}

/** A plan's seeded recurring price (its `stripe.priceId`). */
export function makePrice(id: string, productId: string, plan: CatalogPlan, created: number) {
  return buildPrice({
    id,
    product: productId,
    currency: plan.currency,
    unitAmount: plan.amount,
    interval: plan.interval,
    intervalCount: 1,
    nickname: plan.name,
    lookupKey: `${plan.key}_${plan.interval}ly`,
    metadata: { plan: plan.key },
    active: true,
    taxBehavior: 'unspecified',
    created,
  })
}

/** The legacy `plan` object Stripe still renders on subscription items. */
export function planFromPrice(price: PriceObject) {
  return {
    id: price.id,
    object: 'plan',
    active: true,
    amount: price.unit_amount,
    amount_decimal: String(price.unit_amount),
    billing_scheme: 'per_unit',
    created: price.created,
    currency: price.currency,
    interval: price.recurring.interval,
    interval_count: price.recurring.interval_count,
    livemode: false,
    metadata: price.metadata,
    meter: null,
    nickname: price.nickname,
    product: price.product,
    tiers_mode: null,
    transform_usage: null,
    trial_period_days: null,
    usage_type: 'licensed',
  }
}
