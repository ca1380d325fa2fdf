/** Products, prices and the legacy plan object, built from the plan catalogue. */
import type { CatalogPlan } from '../catalog'
import { nulls, type PriceObject, type ProductObject } from './objects'

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
    ...nulls(`package_dimensions shippable statement_descriptor tax_code tax_details unit_label
      url`),
    type: 'service',
    updated: created,
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
    ...nulls('custom_unit_amount tiers_mode transform_quantity'),
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
    ...nulls('meter tiers_mode transform_usage trial_period_days'),
    nickname: price.nickname,
    product: price.product,
    usage_type: 'licensed',
  }
}
