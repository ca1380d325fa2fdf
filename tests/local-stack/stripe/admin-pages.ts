/** HTML of the webhook deliveries page and the dashboard's Payments list. */
import type { AdminContext } from './admin'
import { escapeHtml } from './http'
import { page } from './layout'

export function deliveriesPage(ctx: AdminContext) {
  const rows = ctx.dispatcher
    .deliveries()
    .reverse()
    .map(
      (delivery) => `<tr>
<td>${escapeHtml(delivery.at)}</td>
<td><code>${escapeHtml(delivery.eventId)}</code><br>${escapeHtml(delivery.type)}</td>
<td>${delivery.attempt}${delivery.duplicate ? ' (duplicate)' : ''}</td>
<td>${delivery.status ?? 'network error'}${delivery.ok ? ' ✓' : ' ✗'}</td>
<td><pre>${escapeHtml(delivery.response)}</pre></td>
<td><form method="post" action="/_emulator/events/${escapeHtml(delivery.eventId)}/resend"><button type="submit" class="secondary" aria-label="Resend ${escapeHtml(delivery.eventId)}">Resend</button></form></td>
</tr>`,
    )
    .join('')
  const pending = [...ctx.store.deliveryState.values()].filter(
    (state) => state === 'pending',
  ).length
  return page(
    'Webhook deliveries',
    `<h1>Webhook deliveries</h1>
<p>${ctx.store.events.size} events, ${pending} pending delivery.</p>
${endpointLine(ctx)}
<table><thead><tr><th>Time</th><th>Event</th><th>Attempt</th><th>Status</th><th>Response</th><th></th></tr></thead>
<tbody>${rows || '<tr><td colspan="6">No deliveries yet.</td></tr>'}</tbody></table>`,
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
  const rows = [...ctx.store.charges.values()]
    .reverse()
    .map((charge) => {
      const left = charge.amount - charge.amount_refunded
      const id = escapeHtml(charge.id)
      const form =
        left > 0
          ? `<form method="post" action="/_emulator/charges/${id}/refund"><label>Amount (cents) <input name="amount" inputmode="numeric" value="${left}"></label> <button type="submit">Refund</button></form>`
          : 'Refunded'
      return `<tr><td><code>${id}</code><br><code>${escapeHtml(charge.payment_intent)}</code></td>
<td>${charge.amount} ${escapeHtml(charge.currency)}</td><td>${charge.amount_refunded}</td>
<td>${charge.disputed ? 'Disputed' : ''}</td><td>${form}</td></tr>`
    })
    .join('')
  return page(
    'Payments',
    `<h1>Payments</h1>
<table><thead><tr><th>Charge</th><th>Amount</th><th>Refunded</th><th>Dispute</th><th></th></tr></thead>
<tbody>${rows || '<tr><td colspan="5">No payments yet.</td></tr>'}</tbody></table>`,
    { wide: true },
  )
}
