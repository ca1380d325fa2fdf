/** Checkout Session line items (`object: 'item'`), listed or included with `expand[]=line_items`. */
import { randomId } from './http'
import type { PriceObject } from './objects'
import type { Store } from './store'

export interface LineItemObject {
  id: string
  object: 'item'
  price: PriceObject
  quantity: number
  [key: string]: unknown
}

/** A line item as Stripe renders it: the whole price, and the product's name as description. */
export function makeLineItem(store: Store, price: PriceObject, quantity: number): LineItemObject {
  const amount = price.unit_amount * quantity
  return {
    id: randomId('li', 24),
    object: 'item',
    adjustable_quantity: null,
    amount_discount: 0,
    amount_subtotal: amount,
    amount_tax: 0,
    amount_total: amount,
    currency: price.currency,
    description: store.products.get(price.product)?.name ?? null,
    metadata: {},
    price: structuredClone(price),
    quantity,
  }
}

/** The session's line items in the order they were given (404 for an unknown session). */
export function sessionLineItems(store: Store, sessionId: string): LineItemObject[] {
  store.checkoutSession(sessionId)
  return store.checkoutExtras.get(sessionId)?.lineItems ?? []
}
