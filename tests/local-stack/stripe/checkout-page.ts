/** Hosted checkout page (`/checkout/:id`). */
import type { IncomingMessage, ServerResponse } from 'node:http'

import { completeCheckout } from './checkout'
import { decodeForm, escapeHtml, readBody, redirect, sendHtml } from './http'
import { CARD_FIELDS, money, page } from './layout'
import type { CheckoutSessionObject } from './objects'
import type { BillingContext } from './subscriptions'

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
