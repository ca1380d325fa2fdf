import { randomId } from './http'
import {
  type CustomerObject,
  type InvoiceObject,
  list,
  nulls,
  type SubscriptionItemObject,
  type SubscriptionObject,
} from './objects'

export interface NewInvoice {
  subscription: SubscriptionObject
  customer: CustomerObject
  billingReason: 'subscription_create' | 'subscription_cycle' | 'subscription_update'
  periodStart: number
  periodEnd: number
  publicUrl: string
  now: number
}

/** A draft invoice for the subscription's current items; the flows finalize and pay it. */
export function makeInvoice(input: NewInvoice): InvoiceObject {
  const id = randomId('in')
  const sub = input.subscription
  const lines = sub.items.data.map((item) => makeLine(id, sub, item))
  const total = lines.reduce((sum, line) => sum + (line.amount as number), 0)
  const automaticTax = (sub.automatic_tax as { enabled: boolean }).enabled
  return {
    id,
    object: 'invoice',
    account_country: 'US',
    account_name: 'Local Stripe Emulator',
    ...nulls(`account_tax_ids application automatically_finalizes_at custom_fields
      customer_account customer_address customer_phone customer_shipping default_payment_method
      default_source description due_date effective_at ending_balance footer from_invoice
      last_finalization_error latest_revision next_payment_attempt number on_behalf_of
      receipt_number rendering shipping_cost shipping_details statement_descriptor test_clock
      webhooks_delivered_at`),
    amount_due: total,
    amount_overpaid: 0,
    amount_paid: 0,
    amount_remaining: total,
    amount_shipping: 0,
    attempt_count: 0,
    attempted: false,
    auto_advance: true,
    automatic_tax: {
      disabled_reason: null,
      enabled: automaticTax,
      liability: automaticTax ? { type: 'self' } : null,
      provider: automaticTax ? 'stripe' : null,
      status: automaticTax ? 'complete' : null,
    },
    billing_reason: input.billingReason,
    collection_method: 'charge_automatically',
    created: input.now,
    currency: sub.currency,
    customer: input.customer.id,
    customer_email: input.customer.email,
    customer_name: input.customer.name,
    customer_tax_exempt: 'none',
    customer_tax_ids: [],
    default_tax_rates: [],
    discounts: [],
    hosted_invoice_url: `${input.publicUrl}/invoices/${id}`,
    invoice_pdf: `${input.publicUrl}/invoices/${id}/pdf`,
    issuer: { type: 'self' },
    lines: { ...list(lines, `/v1/invoices/${id}/lines`), total_count: lines.length },
    livemode: false,
    metadata: {},
    parent: {
      quote_details: null,
      subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id },
      type: 'subscription_details',
    },
    payment_settings: nulls('default_mandate payment_method_options payment_method_types'),
    period_end: input.periodEnd,
    period_start: input.periodStart,
    post_payment_credit_notes_amount: 0,
    pre_payment_credit_notes_amount: 0,
    starting_balance: 0,
    status: 'draft',
    status_transitions: {
      finalized_at: null,
      marked_uncollectible_at: null,
      paid_at: null,
      voided_at: null,
    },
    subtotal: total,
    subtotal_excluding_tax: total,
    total,
    total_discount_amounts: [],
    total_excluding_tax: total,
    total_pretax_credit_amounts: [],
    total_taxes: [],
  }
}

function makeLine(invoiceId: string, sub: SubscriptionObject, item: SubscriptionItemObject) {
  const amount = item.price.unit_amount * item.quantity
  const name = (item.price.nickname as string | null) ?? item.price.id
  const money = `$${(item.price.unit_amount / 100).toFixed(2)}`
  return {
    id: randomId('il', 24),
    object: 'line_item',
    amount,
    currency: item.price.currency,
    description: `${item.quantity} × ${name} (at ${money} / ${item.price.recurring.interval})`,
    discount_amounts: [],
    discountable: true,
    discounts: [],
    invoice: invoiceId,
    livemode: false,
    metadata: { ...sub.metadata },
    parent: {
      invoice_item_details: null,
      subscription_item_details: {
        invoice_item: null,
        proration: false,
        proration_details: { credited_items: null },
        subscription: sub.id,
        subscription_item: item.id,
      },
      type: 'subscription_item_details',
    },
    period: { end: item.current_period_end, start: item.current_period_start },
    pretax_credit_amounts: [],
    pricing: {
      price_details: { price: item.price.id, product: item.price.product },
      type: 'price_details',
      unit_amount_decimal: String(item.price.unit_amount),
    },
    quantity: item.quantity,
    quantity_decimal: String(item.quantity),
    subscription: sub.id,
    subtotal: amount,
    taxes: [],
  }
}
