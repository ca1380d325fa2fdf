/** HTML of the webhook deliveries page and the dashboard's Payments list. */
import { table } from '../http/page'
import type { AdminContext } from './admin'
import { escapeHtml } from './http'
import { page } from './layout'

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
