import type { IncomingMessage, ServerResponse } from 'node:http'

import * as shared from '../http/page'
import { money, table } from '../http/page'
import type { AdminContext } from './admin'
import { completeCheckout } from './checkout'
import { decodeForm, escapeHtml, readBody, redirect, sendHtml } from './http'
import type { CheckoutSessionObject, InvoiceObject } from './objects'
import { payInvoice } from './recovery'
import type { BillingContext } from './subscriptions'

export const page = (title: string, body: string, options: { wide?: boolean } = {}) =>
  shared.page(title, 'Local Stripe emulator — test mode, no real payments', body, options)

export function date(timestamp: number) {
  return new Date(timestamp * 1000).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  })
}

/** The card fields of the checkout, portal and invoice pages (test cards: the README). */
export const CARD_FIELDS = `  <label for="cardNumber">Card number</label>
  <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
  <label for="expiry">Expiration date</label>
  <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="MM / YY" value="12 / 34">
  <label for="cvc">CVC</label>
  <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" value="123">`

export async function handleCheckoutPage(
  ctx: BillingContext,
  req: IncomingMessage,
  res: ServerResponse,
  sessionId: string,
) {
  const session = ctx.store.checkoutSessions.get(sessionId)
  if (!session) return sendHtml(res, 404, notFound('Checkout session not found'))
  if (session.status !== 'open' || session.expires_at <= ctx.store.now()) {
    return sendHtml(res, 410, inactive(session))
  }
  if (req.method !== 'POST') return sendHtml(res, 200, checkoutPage(ctx, session))
  const form = decodeForm(await readBody(req))
  const value = (key: string) => (typeof form[key] === 'string' ? (form[key] as string) : '')
  const result = completeCheckout(ctx, session.id, {
    number: value('cardNumber'),
    email: value('email') || undefined,
    name: value('name') || undefined,
  })
  if (result.ok) return redirect(res, result.redirectTo)
  const status = result.code === 'session_inactive' ? 410 : 402
  sendHtml(res, status, checkoutPage(ctx, session, result.message, value('email')))
}

function checkoutPage(
  ctx: BillingContext,
  session: CheckoutSessionObject,
  error?: string,
  typedEmail = '',
) {
  const extras = ctx.store.checkoutExtras.get(session.id)
  const item = extras?.lineItems[0]
  const product = item ? ctx.store.products.get(item.price.product) : undefined
  const interval = item?.price.recurring.interval ?? 'month'
  const knownEmail = session.customer
    ? ctx.store.customers.get(session.customer)?.email
    : session.customer_email
  const email = knownEmail ?? typedEmail
  const cancel = session.cancel_url
    ? `<p><a href="${escapeHtml(session.cancel_url)}">Back</a></p>`
    : ''
  return page(
    `Subscribe to ${product?.name ?? 'plan'}`,
    `${cancel}
<h1>Subscribe to ${escapeHtml(product?.name ?? 'plan')}</h1>
<p class="amount">${money(session.amount_total, session.currency)} <span class="muted">per ${escapeHtml(interval)}</span></p>
${item && item.quantity > 1 ? `<p>Quantity: ${item.quantity}</p>` : ''}
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/checkout/${escapeHtml(session.id)}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(email)}"${knownEmail ? ' readonly' : ''}>
${CARD_FIELDS}
  <label for="name">Cardholder name</label>
  <input id="name" name="name" autocomplete="cc-name">
  <button type="submit">Subscribe</button>
</form>
<p class="muted">Test cards: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined.</p>`,
  )
}

function inactive(session: CheckoutSessionObject) {
  const done = session.status === 'complete'
  const title = done ? 'This checkout is complete' : 'This Checkout Session is no longer active'
  const link =
    session.cancel_url && !done ? `<p><a href="${escapeHtml(session.cancel_url)}">Back</a></p>` : ''
  return page(title, `<h1>${title}</h1>${link}`)
}

export function notFound(title: string) {
  return page(title, `<h1>${escapeHtml(title)}</h1>`)
}

export async function handleInvoicePage(
  ctx: BillingContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  invoiceId: string,
) {
  const invoice = ctx.store.invoices.get(invoiceId)
  if (!invoice) return sendHtml(res, 404, notFound('Invoice not found'))
  if (req.method !== 'POST') {
    const paid = url.searchParams.get('paid') === '1' && invoice.status === 'paid'
    return sendHtml(
      res,
      200,
      invoicePage(ctx, invoice, paid ? 'Thank you. Your payment was received.' : undefined),
    )
  }
  if (invoice.status !== 'open') {
    return sendHtml(
      res,
      409,
      invoicePage(
        ctx,
        invoice,
        undefined,
        `This invoice is ${invoice.status}; there is nothing to pay.`,
      ),
    )
  }
  const form = decodeForm(await readBody(req))
  const card = typeof form.cardNumber === 'string' ? form.cardNumber : ''
  const outcome = payInvoice(ctx, invoice, { card })
  if (outcome.ok) return redirect(res, `/invoices/${encodeURIComponent(invoice.id)}?paid=1`)
  sendHtml(res, 402, invoicePage(ctx, invoice, undefined, outcome.message))
}

function invoicePage(ctx: BillingContext, invoice: InvoiceObject, notice?: string, error?: string) {
  const site = ctx.store.account.businessUrl
  const rows = invoice.lines.data
    .map(
      (line) =>
        `<tr><td>${escapeHtml(line.description)}</td><td>${money(line.amount as number, invoice.currency)}</td></tr>`,
    )
    .join('')
  const paidAt = invoice.status_transitions.paid_at
  const due = invoice.status === 'open'
  const form = due
    ? `<h2>Pay this invoice</h2>
<form method="post" action="/invoices/${escapeHtml(invoice.id)}">
${CARD_FIELDS}
  <button type="submit">Pay ${money(invoice.amount_remaining as number, invoice.currency)}</button>
</form>
<p class="muted">Test cards: 4242 4242 4242 4242 succeeds; 4000 0000 0000 0002 is declined.</p>`
    : ''
  return page(
    `Invoice ${invoice.number ?? invoice.id}`,
    `<h1>Invoice ${escapeHtml(invoice.number ?? invoice.id)}</h1>
${notice ? `<p role="status">${escapeHtml(notice)}</p>` : ''}
${site ? `<p><a href="${escapeHtml(site)}">Return to ${escapeHtml(new URL(site).host)}</a></p>` : ''}
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<p>Status: <strong>${escapeHtml(invoice.status)}</strong>${paidAt ? ` — paid ${date(paidAt)}` : ''}${due && typeof invoice.due_date === 'number' ? ` — due ${date(invoice.due_date)}` : ''}</p>
<p class="amount">${money(invoice.total, invoice.currency)}</p>
<table><thead><tr><th>Description</th><th>Amount</th></tr></thead><tbody>${rows}</tbody></table>
<p class="muted">Billed to ${escapeHtml(invoice.customer_email ?? invoice.customer)}</p>
${form}`,
  )
}

export function deliveriesPage(ctx: AdminContext) {
  const rows = ctx.dispatcher
    .deliveries()
    .reverse()
    .map((delivery) => [
      escapeHtml(delivery.at),
      `<code>${escapeHtml(delivery.eventId)}</code><br>${escapeHtml(delivery.type)}`,
      `${delivery.attempt}${delivery.duplicate ? ' (duplicate)' : ''}`,
      `${delivery.status ?? 'network error'}${delivery.ok ? ' ✓' : ' ✗'}`,
      `<pre>${escapeHtml(delivery.response)}</pre>`,
      `<form method="post" action="/_emulator/events/${escapeHtml(delivery.eventId)}/resend"><button type="submit" class="secondary" aria-label="Resend ${escapeHtml(delivery.eventId)}">Resend</button></form>`,
    ])
  const pending = [...ctx.store.deliveryState.values()].filter(
    (state) => state === 'pending',
  ).length
  return page(
    'Webhook deliveries',
    `<h1>Webhook deliveries</h1>
<p>${ctx.store.events.size} events, ${pending} pending delivery.</p>
${endpointLine(ctx)}
${table(['Time', 'Event', 'Attempt', 'Status', 'Response', ''], rows, 'No deliveries yet.')}`,
    { wide: true },
  )
}

/** The endpoint, its status, and the way to disable or enable it (`/v1/webhook_endpoints/:id`). */
function endpointLine(ctx: AdminContext) {
  const endpoint = ctx.dispatcher.endpoint
  if (!endpoint) return '<p>No webhook endpoint is set; events wait for one.</p>'
  return `<p>Endpoint <code>${escapeHtml(endpoint.id)}</code> (${escapeHtml(endpoint.url)}): <strong>${endpoint.status}</strong>. Disable or enable it with <code>POST /v1/webhook_endpoints/${escapeHtml(endpoint.id)}</code> and <code>disabled=true|false</code>.</p>`
}

/** The dashboard's Payments list: each charge, with a form to refund all or part of it. */
export function paymentsPage(ctx: AdminContext) {
  const rows = [...ctx.store.charges.values()].reverse().map((charge) => {
    const left = charge.amount - charge.amount_refunded
    const id = escapeHtml(charge.id)
    return [
      `<code>${id}</code><br><code>${escapeHtml(charge.payment_intent)}</code>`,
      `${charge.amount} ${escapeHtml(charge.currency)}`,
      String(charge.amount_refunded),
      charge.disputed ? 'Disputed' : '',
      left > 0
        ? `<form method="post" action="/_emulator/charges/${id}/refund"><label>Amount (cents) <input name="amount" inputmode="numeric" value="${left}"></label> <button type="submit">Refund</button></form>`
        : 'Refunded',
    ]
  })
  return page(
    'Payments',
    `<h1>Payments</h1>
${table(['Charge', 'Amount', 'Refunded', 'Dispute', ''], rows, 'No payments yet.')}`,
    { wide: true },
  )
}
