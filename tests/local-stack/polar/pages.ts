import { escapeHtml as esc } from '../http'
import * as shared from '../http/page'
import { button, money, table } from '../http/page'
import { completeCheckout } from './checkout-flow'
import { ApiError, field, notFound, redirect, type Router, sendHtml, sendJson } from './http'
import type { EmulatorContext } from './state'
import { cancelSubscription, uncancelSubscription } from './subscription-flow'
import { runTrigger } from './triggers'
import type { CheckoutRecord, CustomerSessionRecord } from './types'

export function registerPages(router: Router, ctx: EmulatorContext, environment: string) {
  const { state, webhooks } = ctx
  const missing = (what: string) => page('Not found', `<p role="alert">${esc(what)}</p>`)

  router.on('GET', '/checkout/:key', (req, res) => {
    const checkout = state.checkoutByKey(req.params.key)
    if (!checkout) return sendHtml(res, 404, missing('This checkout does not exist.'))
    sendHtml(res, 200, checkoutPage(ctx, checkout))
  })
  router.on('POST', '/checkout/:key', (req, res) => {
    const checkout = state.checkoutByKey(req.params.key)
    if (!checkout) return sendHtml(res, 404, missing('This checkout does not exist.'))
    if (checkout.status !== 'open') return sendHtml(res, 409, checkoutPage(ctx, checkout))
    const [email, name] = [field(req.body, 'email'), field(req.body, 'name')]
    completeCheckout(ctx, checkout, { email, name })
    redirect(res, checkout.success_url)
  })

  router.on('GET', '/portal/:token', (req, res) => {
    const session = state.sessionByToken(req.params.token)
    if (!session) return sendHtml(res, 404, missing('This portal link is invalid or has expired.'))
    sendHtml(res, 200, portalPage(ctx, session))
  })
  router.on('POST', '/portal/:token/subscriptions/:id', (req, res) => {
    const session = state.sessionByToken(req.params.token)
    const subscription = state.subscriptions.get(req.params.id)
    if (!session || subscription?.customer_id !== session.customer_id)
      return sendHtml(res, 404, missing('This portal link is invalid or has expired.'))
    const intent = field(req.body, 'intent')
    const act = { cancel: cancelSubscription, resume: uncancelSubscription }[intent ?? '']
    if (!act) return sendHtml(res, 400, portalPage(ctx, session, 'Unknown action.'))
    try {
      act(ctx, subscription)
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      return sendHtml(res, 409, portalPage(ctx, session, error.detail))
    }
    redirect(res, `/portal/${encodeURIComponent(session.token)}`)
  })

  router.on('GET', '/invoices/:id', (req, res) => {
    const order = state.orders.get(req.params.id)
    if (!order?.is_invoice_generated) return sendHtml(res, 404, missing('Invoice not found.'))
    const customer = state.customer(order.customer_id)
    const body = `<p>${esc(state.organization.name)} · issued ${date(order.created_at)}</p>
<p>Billed to ${esc(order.billing_name)} &lt;${esc(customer.email)}&gt;, ${esc(order.billing_address?.country)}</p>
<p>${esc(state.product(order.product_id).name)}: ${money(order.amount, order.currency)}, refunded ${money(order.refunded_amount, order.currency)}</p>`
    sendHtml(res, 200, page(`Invoice ${order.invoice_number}`, body))
  })

  router.on('GET', '/', (_req, res) => sendHtml(res, 200, homePage(ctx, environment)))
  router.on('GET', '/_emulator/deliveries', (_req, res) => sendHtml(res, 200, deliveriesPage(ctx)))

  router.on('POST', '/_emulator/events/:id/resend', (req, res) => {
    const delivery = webhooks.resend(req.params.id)
    if (!delivery) throw notFound('Event not found')
    if (req.isForm) return redirect(res, '/_emulator/deliveries')
    sendJson(res, 202, {
      id: delivery.id,
      type: delivery.type,
      status: delivery.status,
    })
  })

  router.on('POST', '/_emulator/trigger', (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>
    const result = runTrigger(ctx, field(body, 'type') ?? '', {
      subscription_id: field(body, 'subscription_id'),
      order_id: field(body, 'order_id'),
      amount: body.amount === undefined ? undefined : Number(body.amount),
      paid: body.paid === undefined ? undefined : String(body.paid) !== 'false',
    })
    if (req.isForm) return redirect(res, '/')
    sendJson(res, 200, result)
  })
}

function date(iso: string | null) {
  return iso ? iso.slice(0, 10) : '—'
}

const page = (title: string, body: string) =>
  shared.page(
    title,
    'Polar (local emulator) · <a href="/">home</a>',
    `<h1>${esc(title)}</h1>${body}`,
  )

function checkoutPage(ctx: EmulatorContext, checkout: CheckoutRecord) {
  const product = ctx.state.product(checkout.product_id)
  if (checkout.status !== 'open') {
    return page(
      `Subscribe to ${product.name}`,
      `<p role="status">This checkout is ${esc(checkout.status)}.</p>`,
    )
  }
  return page(
    `Subscribe to ${product.name}`,
    `<p><strong>${money(product.amount, product.currency)} / ${esc(product.recurring_interval)}</strong></p>
<form method="post">
<label for="email">Email</label><input id="email" name="email" type="email" required value="${esc(checkout.customer_email)}">
<label for="name">Cardholder name</label><input id="name" name="name" required value="${esc(checkout.customer_name ?? 'Local Customer')}">
<p><button type="submit">Pay now</button></p>
</form>`,
  )
}

function portalPage(ctx: EmulatorContext, session: CustomerSessionRecord, error?: string) {
  const { state } = ctx
  const customer = state.customer(session.customer_id)
  const action = (id: string) => `/portal/${session.token}/subscriptions/${id}`
  const sections = state.subscriptionsOf(customer.id).map((s) => {
    const product = state.product(s.product_id)
    const [status, buttons] =
      s.status === 'canceled'
        ? [`Canceled on ${date(s.ended_at)}`, '']
        : s.cancel_at_period_end
          ? [
              `Cancels on ${date(s.ends_at)}`,
              button(action(s.id), 'Resume subscription', { intent: 'resume' }),
            ]
          : [
              `Renews on ${date(s.current_period_end)}`,
              button(action(s.id), 'Cancel subscription', { intent: 'cancel' }),
            ]
    return `<section aria-label="${esc(product.name)} subscription"><h2>${esc(product.name)}</h2>
<p>${money(s.amount, s.currency)} / ${esc(s.recurring_interval)} · ${esc(status)}</p>${buttons}</section>`
  })
  return page(
    'Customer portal',
    `<p>Signed in as ${esc(customer.email)}</p>${error ? `<p role="alert">${esc(error)}</p>` : ''}
${sections.join('') || '<p>No subscriptions.</p>'}
${session.return_url ? `<p><a href="${esc(session.return_url)}">Return to site</a></p>` : ''}`,
  )
}

function homePage(ctx: EmulatorContext, environment: string) {
  const { state } = ctx
  const trigger = (label: string, fields: Record<string, string>) =>
    button('/_emulator/trigger', label, fields)
  const subscriptions = [...state.subscriptions.values()].map((s) => [
    `<code>${esc(s.id)}</code>`,
    esc(state.customer(s.customer_id).email),
    esc(state.product(s.product_id).name),
    esc(s.status),
    s.status === 'canceled' ? '' : trigger('Renew', { type: 'renewal', subscription_id: s.id }),
  ])
  const orders = [...state.orders.values()].map((o) => [
    `<code>${esc(o.id)}</code>`,
    esc(o.billing_reason),
    money(o.amount, o.currency),
    esc(o.status),
    o.status === 'paid' || o.status === 'partially_refunded'
      ? trigger('Refund', { type: 'refund', order_id: o.id })
      : '',
  ])
  return page(
    `Polar emulator (${environment})`,
    `<p><a href="/_emulator/deliveries">Webhook deliveries</a></p>
<h2>Subscriptions</h2>${table(['Subscription', 'Customer', 'Product', 'Status', ''], subscriptions, 'None yet.')}
<h2>Orders</h2>${table(['Order', 'Reason', 'Amount', 'Status', ''], orders, 'None yet.')}`,
  )
}

function deliveriesPage(ctx: EmulatorContext) {
  const endpoint = ctx.webhooks.endpoint()
  const rows = ctx.webhooks
    .list()
    .reverse()
    .map((d) => {
      const last = d.attempts.at(-1)
      return [
        esc(d.createdAt),
        `${esc(d.type)} <code>${esc(d.id)}</code>`,
        esc(d.status),
        String(d.attempts.length),
        esc(last?.status ?? last?.response),
        button(`/_emulator/events/${d.id}/resend`, 'Resend'),
      ]
    })
  const disabled = endpoint.enabled
    ? ''
    : `<p role="alert">Endpoint disabled since ${esc(endpoint.disabledAt)} after consecutive failed events; pending events were skipped and new events are not created.</p>`
  return page(
    'Webhook deliveries',
    `<p>Endpoint: <code>${esc(endpoint.url ?? 'not set')}</code></p>${disabled}
${table(['Created', 'Event', 'Status', 'Attempts', 'Last answer', ''], rows, 'No events yet.')}`,
  )
}
