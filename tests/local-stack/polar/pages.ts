import { completeCheckout } from './checkout-flow'
import type { EmulatorContext } from './context'
import { date, esc, money, notFoundPage, page } from './html'
import { ApiError, field, redirect, type Router, sendHtml } from './http'
import { cancelSubscription, revokeSubscription, uncancelSubscription } from './subscription-flow'
import type { CheckoutRecord, CustomerSessionRecord } from './types'

/** Hosted checkout, customer portal and invoice pages: plain server-rendered HTML forms. */
export function registerPages(router: Router, ctx: EmulatorContext) {
  const { state } = ctx

  router.on('GET', '/checkout/:key', (req, res) => {
    const checkout = state.checkoutByKey(req.params.key)
    if (!checkout) return sendHtml(res, 404, notFoundPage('This checkout does not exist.'))
    sendHtml(res, 200, checkoutPage(ctx, checkout))
  })

  router.on('POST', '/checkout/:key', (req, res) => {
    const checkout = state.checkoutByKey(req.params.key)
    if (!checkout) return sendHtml(res, 404, notFoundPage('This checkout does not exist.'))
    if (checkout.status !== 'open') return sendHtml(res, 409, checkoutPage(ctx, checkout))
    if (field(req.body, 'intent') === 'decline') {
      return sendHtml(
        res,
        200,
        checkoutPage(ctx, checkout, 'Your card was declined. No payment was taken; try again.'),
      )
    }
    completeCheckout(ctx, checkout, {
      email: field(req.body, 'email'),
      name: field(req.body, 'name'),
      country: field(req.body, 'country'),
      productId: field(req.body, 'product_id'),
    })
    redirect(res, checkout.success_url)
  })

  router.on('GET', '/checkout/:key/confirmation', (req, res) => {
    const checkout = state.checkoutByKey(req.params.key)
    if (!checkout) return sendHtml(res, 404, notFoundPage('This checkout does not exist.'))
    sendHtml(
      res,
      200,
      page(
        'Payment successful',
        `<h1>Payment successful</h1><p>Checkout ${esc(checkout.id)} is ${esc(checkout.status)}.</p>`,
      ),
    )
  })

  router.on('GET', '/portal/:token', (req, res) => {
    const session = state.sessionByToken(req.params.token)
    if (!session)
      return sendHtml(res, 404, notFoundPage('This portal link is invalid or has expired.'))
    sendHtml(res, 200, portalPage(ctx, session, notices[req.query.get('notice') ?? '']))
  })

  router.on('POST', '/portal/:token/subscriptions/:id', (req, res) => {
    const session = state.sessionByToken(req.params.token)
    const subscription = state.subscriptions.get(req.params.id)
    if (!session || !subscription || subscription.customer_id !== session.customer_id) {
      return sendHtml(res, 404, notFoundPage('This portal link is invalid or has expired.'))
    }
    const intent = field(req.body, 'intent')
    try {
      if (intent === 'cancel')
        cancelSubscription(ctx, subscription, { customer_cancellation_reason: 'other' })
      else if (intent === 'resume') uncancelSubscription(ctx, subscription)
      else if (intent === 'revoke') revokeSubscription(ctx, subscription)
      else return sendHtml(res, 400, portalPage(ctx, session, undefined, 'Unknown action.'))
    } catch (error) {
      if (!(error instanceof ApiError)) throw error
      return sendHtml(res, 409, portalPage(ctx, session, undefined, error.detail))
    }
    redirect(res, `/portal/${encodeURIComponent(session.token)}?notice=${intent}`)
  })

  router.on('GET', '/invoices/:id', (req, res) => {
    const order = state.orders.get(req.params.id)
    if (!order || !order.is_invoice_generated)
      return sendHtml(res, 404, notFoundPage('Invoice not found.'))
    const customer = state.customer(order.customer_id)
    const product = state.product(order.product_id)
    sendHtml(
      res,
      200,
      page(
        `Invoice ${order.invoice_number}`,
        `<h1>Invoice ${esc(order.invoice_number)}</h1>
<p>${esc(state.organization.name)} · issued ${date(order.created_at)}</p>
<p>Billed to ${esc(order.billing_name)} &lt;${esc(customer.email)}&gt;, ${esc(order.billing_address?.country)}</p>
<table><tr><th>Item</th><th>Amount</th></tr><tr><td>${esc(product.name)}</td><td>${money(order.amount, order.currency)}</td></tr>
<tr><td>Refunded</td><td>${money(-order.refunded_amount, order.currency)}</td></tr></table>`,
      ),
    )
  })
}

const notices: Record<string, string> = {
  cancel: 'Your subscription will be canceled at the end of the billing period.',
  resume: 'Your subscription has been resumed.',
  revoke: 'Your subscription has been canceled immediately.',
}

function checkoutPage(ctx: EmulatorContext, checkout: CheckoutRecord, error?: string) {
  const product = ctx.state.product(checkout.product_id)
  const price = `${money(product.amount, product.currency)} / ${product.recurring_interval}`
  if (checkout.status !== 'open') {
    return page(
      'Checkout',
      `<h1>${esc(product.name)}</h1><p role="status">This checkout is ${esc(checkout.status)}.</p>
<p><a href="${esc(checkout.success_url)}">Continue</a></p>`,
    )
  }
  const choices = checkout.product_ids.map((id) => ctx.state.product(id))
  const planField =
    choices.length > 1
      ? `<fieldset><legend>Plan</legend>${choices
          .map(
            (p) =>
              `<label><input type="radio" name="product_id" value="${esc(p.id)}"${p.id === product.id ? ' checked' : ''}> ${esc(p.name)} — ${money(p.amount, p.currency)} / ${esc(p.recurring_interval)}</label>`,
          )
          .join('')}</fieldset>`
      : ''
  return page(
    `Checkout · ${product.name}`,
    `<h1>Subscribe to ${esc(product.name)}</h1>
<p><strong>${esc(price)}</strong></p><p class="muted">${esc(product.description)}</p>
${error ? `<p role="alert">${esc(error)}</p>` : ''}
<form method="post">${planField}
<label for="email">Email</label><input id="email" name="email" type="email" required value="${esc(checkout.customer_email)}">
<label for="name">Cardholder name</label><input id="name" name="name" required value="${esc(checkout.customer_name ?? 'Local Customer')}">
<label for="card">Card number</label><input id="card" name="card" value="4242 4242 4242 4242" autocomplete="off">
<label for="country">Country</label><select id="country" name="country"><option value="US">United States</option><option value="DE">Germany</option><option value="FR">France</option><option value="GB">United Kingdom</option></select>
<button type="submit" name="intent" value="pay">Pay now</button>
<button type="submit" name="intent" value="decline" class="danger" formnovalidate>Simulate card decline</button>
</form>${checkout.return_url ? `<p><a href="${esc(checkout.return_url)}">Back to the store</a></p>` : ''}`,
  )
}

function portalPage(
  ctx: EmulatorContext,
  session: CustomerSessionRecord,
  notice?: string,
  error?: string,
) {
  const customer = ctx.state.customer(session.customer_id)
  const subscriptions = ctx.state.subscriptionsOf(customer.id)
  const action = (id: string, intent: string, label: string, kind = '') =>
    `<form method="post" action="/portal/${esc(session.token)}/subscriptions/${esc(id)}" class="inline"><button type="submit" name="intent" value="${intent}" class="${kind}">${label}</button></form>`
  const sections = subscriptions.map((s) => {
    const product = ctx.state.product(s.product_id)
    const ended = s.status === 'canceled'
    const state = ended
      ? `Canceled on ${date(s.ended_at)}`
      : s.cancel_at_period_end
        ? `Cancels on ${date(s.ends_at)}`
        : `Renews on ${date(s.current_period_end)}`
    const buttons = ended
      ? ''
      : s.cancel_at_period_end
        ? action(s.id, 'resume', 'Resume subscription') +
          action(s.id, 'revoke', 'End immediately', 'danger')
        : action(s.id, 'cancel', 'Cancel subscription', 'secondary') +
          action(s.id, 'revoke', 'End immediately', 'danger')
    return `<section aria-label="${esc(product.name)} subscription"><h2>${esc(product.name)}</h2>
<p>${money(s.amount, s.currency)} / ${esc(s.recurring_interval)} · Status: <strong>${esc(s.status)}</strong> · ${esc(state)}</p>${buttons}</section>`
  })
  const orders = [...ctx.state.orders.values()].filter((o) => o.customer_id === customer.id)
  const orderRows = orders
    .map(
      (o) =>
        `<tr><td>${date(o.created_at)}</td><td>${esc(ctx.state.product(o.product_id).name)}</td><td>${money(o.amount, o.currency)}</td><td>${esc(o.status)}</td></tr>`,
    )
    .join('')
  return page(
    'Customer portal',
    `<h1>Customer portal</h1><p>Signed in as ${esc(customer.email)}</p>
${notice ? `<p role="status">${esc(notice)}</p>` : ''}${error ? `<p role="alert">${esc(error)}</p>` : ''}
${sections.join('') || '<p>No subscriptions.</p>'}
<h2>Orders</h2><table><tr><th>Date</th><th>Product</th><th>Amount</th><th>Status</th></tr>${orderRows}</table>
${session.return_url ? `<p><a href="${esc(session.return_url)}">Return to site</a></p>` : ''}`,
  )
}
