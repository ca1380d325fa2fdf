/** Products, prices and the legacy plan object, built from the plan catalogue. */
import type { CatalogPlan } from '../catalog'
import type { PriceObject, ProductObject } from './objects'

/** A plan's seeded product (its `stripe.productId`). */
export function makeProduct(
  id: string,
  plan: CatalogPlan,
  priceId: string,
  created: number,
): ProductObject {
  return {
    id,
    object: 'product',
    active: true,
    created,
    default_price: priceId,
    description: plan.description,
    images: [],
    livemode: false,
    marketing_features: plan.features.map((name) => ({ name })),
    metadata: { plan: plan.key },
    name: plan.name,
    package_dimensions: null,
    shippable: null,
    statement_descriptor: null,
    tax_code: null,
    tax_details: null,
    type: 'service',
    unit_label: null,
    updated: created,
    url: null,
  }
}

/** A plan's seeded recurring price (its `stripe.priceId`). */
export function makePrice(
  id: string,
  productId: string,
  plan: CatalogPlan,
  created: number,
): PriceObject {
  return {
    id,
    object: 'price',
    active: true,
    billing_scheme: 'per_unit',
    created,
    currency: plan.currency,
    custom_unit_amount: null,
    livemode: false,
    lookup_key: `${plan.key}_${plan.interval}ly`,
    metadata: { plan: plan.key },
    nickname: plan.name,
    product: productId,
    recurring: {
      interval: plan.interval,
      interval_count: 1,
      meter: null,
      trial_period_days: null,
      usage_type: 'licensed',
    },
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    type: 'recurring',
    unit_amount: plan.amount,
    unit_amount_decimal: String(plan.amount),
  }
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
