/**
 * The portal's card form: reached from the portal's homepage, or straight from a session
 * created with `flow_data[type]=payment_method_update`. Saving a card makes it the
 * customer's default payment method; a flow then goes where its `after_completion` says.
 */
import type { ServerResponse } from 'node:http'

import { escapeHtml, redirect, sendHtml } from './http'
import { page } from './layout'
import type { PortalSessionObject } from './objects'
import type { PortalFlow } from './portal-flows'
import { updatePaymentMethod } from './recovery'
import type { BillingContext } from './subscriptions'

export function paymentMethodPage(
  ctx: BillingContext,
  session: PortalSessionObject,
  error?: string,
) {
  const customer = ctx.store.customer(session.customer)
  // A deep link hides the rest of the portal; its way out is the session's return URL.
  const back = session.flow
    ? returnLink(session)
    : `<p><a href="/portal/${escapeHtml(session.id)}">Back to the billing portal</a></p>`
  return page(
    'Update payment method',
    `${back}<h1>Update payment method</h1>
<p class="muted">${escapeHtml(customer.email ?? customer.id)}</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/portal/${escapeHtml(session.id)}">
  <input type="hidden" name="intent" value="update_payment_method">
  <label for="cardNumber">Card number</label>
  <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
  <label for="expiry">Expiration date</label>
  <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="MM / YY" value="12 / 34">
  <label for="cvc">CVC</label>
  <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" value="123">
  <button type="submit">Save payment method</button>
</form>
<p class="muted">The new card is used for future payments and for the next retry of an unpaid invoice.</p>`,
  )
}

export function updateCardFromPortal(
  ctx: BillingContext,
  res: ServerResponse,
  session: PortalSessionObject,
  cardNumber: string,
) {
  const customer = ctx.store.customer(session.customer)
  const outcome = updatePaymentMethod(ctx, customer, cardNumber)
  if (!outcome.ok) return sendHtml(res, 402, paymentMethodPage(ctx, session, outcome.message))
  completeFlow(ctx, res, session, 'payment_method')
}

/** A deep link's task is done: on where its `after_completion` says (else the portal). */
export function completeFlow(
  ctx: BillingContext,
  res: ServerResponse,
  session: PortalSessionObject,
  notice: string,
) {
  const redirectTo = (session.flow as PortalFlow | null)?.after_completion.redirect?.return_url
  if (session.flow) ctx.store.completedPortalFlows.add(session.id)
  redirect(res, redirectTo ?? `/portal/${session.id}?notice=${notice}`)
}

/** The way back to the site, when the session has a return URL. */
export function returnLink(session: PortalSessionObject) {
  const url = session.return_url
  return url ? `<p><a href="${escapeHtml(url)}">Return to site</a></p>` : ''
}
