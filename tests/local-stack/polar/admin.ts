import type { ServerResponse } from 'node:http'

import { bodyError } from './api-helpers'
import type { EmulatorContext } from './context'
import { date, esc, money, page } from './html'
import {
  ApiError,
  field,
  notFound,
  redirect,
  type Req,
  type Router,
  sendHtml,
  sendJson,
} from './http'
import { runTrigger } from './triggers'
import type { Delivery } from './types'
import type { EndpointState } from './webhooks'

/** The dashboard under /_emulator (no token): deliveries, re-send, triggers; plus the index page. */
export function registerAdmin(
  router: Router,
  ctx: EmulatorContext,
  environment: 'sandbox' | 'production',
) {
  const { webhooks } = ctx
  const answer = (req: Req, res: ServerResponse, status: number, body: unknown, back: string) =>
    req.isForm ? redirect(res, back) : sendJson(res, status, body)

  router.on('GET', '/', (_req, res) => sendHtml(res, 200, indexPage(ctx, environment)))

  router.on('GET', '/_emulator/deliveries', (req, res) => {
    if (req.wantsJson || req.query.get('format') === 'json') {
      return sendJson(res, 200, {
        webhook_url: webhooks.getUrl() ?? null,
        endpoint: endpointJson(webhooks.endpoint()),
        deliveries: webhooks.list(),
      })
    }
    sendHtml(res, 200, deliveriesPage(webhooks.endpoint(), webhooks.list()))
  })

  // The dashboard's "Enable" switch: re-enabling sends nothing by itself (re-send each event).
  router.on('POST', '/_emulator/webhook-endpoint', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>
    const enabled = body.enabled === true || body.enabled === 'true'
    if (!enabled && body.enabled !== false && body.enabled !== 'false')
      throw bodyError('enabled', 'Input should be a valid boolean', body.enabled)
    webhooks.setEnabled(enabled)
    answer(req, res, 200, endpointJson(webhooks.endpoint()), '/_emulator/deliveries')
  })

  router.on('POST', '/_emulator/events/:id/resend', (req, res) => {
    const delivery = webhooks.resend(req.params.id)
    if (!delivery) throw notFound('Event not found')
    answer(
      req,
      res,
      202,
      { id: delivery.id, type: delivery.type, status: delivery.status },
      '/_emulator/deliveries',
    )
  })

  router.on('POST', '/_emulator/trigger', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>
    const type = field(body, 'type')
    if (!type) throw new ApiError(400, 'MissingType', 'Body must include "type".')
    const amount = body.amount === undefined || body.amount === '' ? undefined : Number(body.amount)
    const paid =
      body.paid === undefined || body.paid === ''
        ? undefined
        : body.paid !== false && body.paid !== 'false'
    const result = runTrigger(ctx, type, {
      subscription_id: field(body, 'subscription_id'),
      order_id: field(body, 'order_id'),
      customer_id: field(body, 'customer_id'),
      checkout_id: field(body, 'checkout_id'),
      amount,
      paid,
    })
    answer(req, res, 200, result, '/')
  })
}

function button(label: string, fields: Record<string, string>) {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`)
    .join('')
  return `<form method="post" action="/_emulator/trigger" class="inline">${inputs}<button type="submit" class="secondary">${esc(label)}</button></form>`
}

function indexPage(ctx: EmulatorContext, environment: 'sandbox' | 'production') {
  const { state } = ctx
  const products = [...state.products.values()]
    .map(
      (p) =>
        `<tr><td>${esc(p.name)}</td><td><code>${esc(p.id)}</code></td><td>${money(p.amount, p.currency)} / ${esc(p.recurring_interval)}</td></tr>`,
    )
    .join('')
  const subscriptions = [...state.subscriptions.values()]
    .map((s) => {
      const customer = state.customer(s.customer_id)
      const actions =
        s.status === 'canceled'
          ? ''
          : button('Renew', { type: 'renewal', subscription_id: s.id }) +
            button('Renew (declined)', { type: 'renewal', subscription_id: s.id, paid: 'false' }) +
            button('Revoke', { type: 'revoke', subscription_id: s.id })
      return `<tr><td><code>${esc(s.id)}</code></td><td>${esc(customer.email)}</td><td>${esc(state.product(s.product_id).name)}</td><td>${esc(s.status)}${s.cancel_at_period_end ? ' (cancels at period end)' : ''}</td><td>${date(s.current_period_end)}</td><td>${actions}</td></tr>`
    })
    .join('')
  const orders = [...state.orders.values()]
    .map((o) => {
      const refundable = o.status === 'paid' || o.status === 'partially_refunded'
      return `<tr><td><code>${esc(o.id)}</code></td><td>${esc(o.billing_reason)}</td><td>${money(o.amount, o.currency)}</td><td>${esc(o.status)}</td><td>${o.is_invoice_generated ? `<a href="/invoices/${esc(o.id)}">invoice</a>` : '—'}</td><td>${refundable ? button('Refund', { type: 'refund', order_id: o.id }) : ''}</td></tr>`
    })
    .join('')
  return page(
    'Polar emulator',
    `<h1>Polar emulator (${esc(environment)})</h1><p>Organization <strong>${esc(state.organization.name)}</strong> <code>${esc(state.organization.id)}</code> · webhooks → <code>${esc(ctx.webhooks.getUrl() ?? 'not set')}</code>${ctx.webhooks.endpoint().enabled ? '' : ' <strong>(endpoint disabled)</strong>'} · <a href="/_emulator/deliveries">Webhook deliveries</a></p>
<h2>Products</h2><table><tr><th>Name</th><th>Id</th><th>Price</th></tr>${products}</table>
<h2>Subscriptions</h2><table><tr><th>Id</th><th>Customer</th><th>Product</th><th>Status</th><th>Period end</th><th>Actions</th></tr>${subscriptions}</table>
<h2>Orders</h2><table><tr><th>Id</th><th>Reason</th><th>Amount</th><th>Status</th><th>Invoice</th><th>Actions</th></tr>${orders}</table>`,
  )
}

function endpointJson(endpoint: EndpointState) {
  return { url: endpoint.url, enabled: endpoint.enabled, disabled_at: endpoint.disabledAt }
}

function deliveriesPage(endpoint: EndpointState, deliveries: Delivery[]) {
  const rows = [...deliveries]
    .reverse()
    .map((d) => {
      const last = d.attempts.at(-1)
      const response = last ? (last.error ?? `${last.status} ${last.responseBody}`) : ''
      return `<tr><td>${esc(d.createdAt)}</td><td>${esc(d.type)}<br><code class="muted">${esc(d.id)}</code></td><td>${esc(d.status)}</td><td>${d.attempts.length}</td><td><pre>${esc(response)}</pre></td>
<td><form method="post" action="/_emulator/events/${esc(d.id)}/resend" class="inline"><button type="submit" class="secondary">Resend</button></form></td></tr>`
    })
    .join('')
  return page(
    'Webhook deliveries',
    `<h1>Webhook deliveries</h1><p>Endpoint: <code>${esc(endpoint.url ?? 'not set')}</code> · <a href="/_emulator/deliveries?format=json">JSON</a></p>
${
  endpoint.enabled
    ? ''
    : `<p role="alert"><strong>Endpoint disabled</strong> since ${esc(endpoint.disabledAt ?? '')} after consecutive failed events; pending events were skipped and new events are not sent. <form method="post" action="/_emulator/webhook-endpoint" class="inline"><input type="hidden" name="enabled" value="true"><button type="submit">Enable endpoint</button></form></p>`
}
<table><tr><th>Created</th><th>Event</th><th>Status</th><th>Attempts</th><th>Last response</th><th></th></tr>${rows}</table>`,
  )
}
