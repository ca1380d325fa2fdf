/**
 * Hosted invoice page (`/invoices/:id`, where `hosted_invoice_url` points): the invoice, and
 * for an open one a card form that pays it, as Stripe's hosted invoice page does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

import { notFound } from './checkout-page'
import { decodeForm, escapeHtml, readBody, redirect, sendHtml } from './http'
import { CARD_FIELDS, date, money, page } from './layout'
import type { InvoiceObject } from './objects'
import { payInvoice } from './recovery'
import type { BillingContext } from './subscriptions'

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
