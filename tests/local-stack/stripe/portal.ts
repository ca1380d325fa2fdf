import type { IncomingMessage, ServerResponse } from 'node:http'

import { money } from '../http/page'
import { text } from './checkout'
import {
  decodeForm,
  escapeHtml,
  invalid,
  missingParam,
  noSuch,
  type Params,
  randomId,
  readBody,
  redirect,
  sendHtml,
} from './http'
import type { PortalSessionObject, SubscriptionObject } from './objects'
import { CARD_FIELDS, date, notFound, page } from './pages'
import { parseFlowData, type PortalFlow } from './portal-flows'
import { updatePaymentMethod } from './recovery'
import { DEFAULT_PORTAL_CONFIGURATION } from './store'
import { type BillingContext, updateSubscription } from './subscriptions'

/** Portal links stop working after this long (Stripe's are short-lived too). */
export const PORTAL_SESSION_TTL_SECONDS = 30 * 60

const FEEDBACK_OPTIONS: [string, string][] = [
  ['too_expensive', 'It’s too expensive'],
  ['missing_features', 'Some features are missing'],
  ['switched_service', 'I’m switching to a different service'],
  ['unused', 'I don’t use the service enough'],
  ['customer_service', 'Customer service was less than expected'],
  ['too_complex', 'Ease of use was less than expected'],
  ['low_quality', 'Quality was less than expected'],
  ['other', 'Other reason'],
]

export function createPortalSession(ctx: BillingContext, params: Params): PortalSessionObject {
  const customerId = text(params.customer)
  if (!customerId) throw missingParam('customer')
  ctx.store.customer(customerId, 'customer')
  // Only a configuration the account has: the default one, or one the emulator was told of
  // (Stripe answers an unknown id with resource_missing).
  const configuration = text(params.configuration) ?? DEFAULT_PORTAL_CONFIGURATION
  if (!ctx.store.account.portalConfigurations.has(configuration))
    throw noSuch('configuration', configuration, 'configuration')
  const flow = parseFlowData(params.flow_data)
  if (flow?.subscription_update_confirm)
    checkUpdateConfirm(ctx, customerId, configuration, flow.subscription_update_confirm)
  const id = randomId('bps', 24)
  const session: PortalSessionObject = {
    id,
    object: 'billing_portal.session',
    configuration,
    created: ctx.store.now(),
    customer: customerId,
    customer_account: null,
    flow,
    livemode: false,
    locale: text(params.locale) ?? null,
    on_behalf_of: null,
    return_url: text(params.return_url) ?? null,
    url: `${ctx.publicUrl}/portal/${id}`,
  }
  ctx.store.portalSessions.set(id, session)
  return session
}

/** A confirm flow's subscription, item and price (one the configuration offers). */
function checkUpdateConfirm(
  ctx: BillingContext,
  customer: string,
  configuration: string,
  { subscription, items: [item] }: NonNullable<PortalFlow['subscription_update_confirm']>,
) {
  const at = 'flow_data[subscription_update_confirm]'
  const sub = ctx.store.subscriptions.get(subscription)
  if (!sub || sub.customer !== customer)
    throw noSuch('subscription', subscription, `${at}[subscription]`)
  if (sub.status === 'canceled')
    throw invalid('This subscription is canceled and cannot be updated.', `${at}[subscription]`)
  if (!sub.items.data.some((candidate) => candidate.id === item.id))
    throw noSuch('subscription item', item.id, `${at}[items][0][id]`)
  if (ctx.store.account.portalPlanChangesOff.has(configuration))
    throw invalid(
      'The subscription update feature in the portal configuration is disabled.',
      'flow_data[type]',
    )
  const price = ctx.store.prices.get(item.price)
  const offered = ctx.store.account.portalPrices.get(configuration)
  if (!price?.active || !price.recurring || (offered && !offered.includes(price.id)))
    throw invalid(
      `The price ${item.price} must be included in the configuration's features.subscription_update.products.`,
      `${at}[items][0][price]`,
    )
}

const NOTICES: Record<string, string> = {
  scheduled: 'Your subscription will be canceled at the end of the billing period.',
  resumed: 'Your subscription has been renewed.',
  switched: 'Your plan has been updated.',
  payment_method: 'Your payment method has been updated.',
}

export async function handlePortalPage(
  ctx: BillingContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  sessionId: string,
) {
  const session = ctx.store.portalSessions.get(sessionId)
  if (!session) return sendHtml(res, 404, notFound('Portal session not found'))
  if (ctx.store.now() - session.created > PORTAL_SESSION_TTL_SECONDS) {
    const body = `<h1>This portal session has expired</h1><p>Portal links are valid for 30 minutes. Open the billing portal again from the site.</p>${returnLink(session)}`
    return sendHtml(res, 410, page('Portal session expired', body))
  }
  const flow = ctx.store.completedPortalFlows.has(session.id)
    ? null
    : (session.flow as PortalFlow | null)
  const onCardForm =
    flow?.type === 'payment_method_update' || url.searchParams.get('view') === 'payment_method'
  if (req.method !== 'POST') {
    if (flow?.subscription_update_confirm)
      return sendHtml(res, 200, confirmPage(ctx, session, flow))
    if (onCardForm) return sendHtml(res, 200, paymentMethodPage(ctx, session))
    return sendHtml(
      res,
      200,
      portalPage(ctx, session, NOTICES[url.searchParams.get('notice') ?? '']),
    )
  }
  const form = decodeForm(await readBody(req))
  const value = (key: string) => (typeof form[key] === 'string' ? (form[key] as string) : '')
  if (value('intent') === 'update_payment_method') {
    return updateCardFromPortal(ctx, res, session, value('cardNumber'))
  }
  if (value('intent') === 'confirm_update' && flow?.subscription_update_confirm) {
    const { subscription, items } = flow.subscription_update_confirm
    const sub = ctx.store.subscriptions.get(subscription)!
    const { id: itemId, price: priceId, quantity } = items[0]
    updateSubscription(ctx, sub, { price: { priceId, itemId, quantity: quantity ?? undefined } })
    return completeFlow(ctx, res, session, 'switched')
  }
  const sub = ctx.store.subscriptions.get(value('subscription'))
  const cancel = value('intent') === 'cancel_at_period_end'
  if (!sub || sub.customer !== session.customer || (!cancel && value('intent') !== 'resume')) {
    return sendHtml(res, 404, notFound('Subscription not found'))
  }
  const feedback = value('feedback') || null
  const comment = value('comment') || null
  updateSubscription(
    ctx,
    sub,
    cancel ? { cancelAtPeriodEnd: true, feedback, comment } : { cancelAtPeriodEnd: false },
  )
  redirect(res, `/portal/${session.id}?notice=${cancel ? 'scheduled' : 'resumed'}`)
}

/** The confirm flow's page: the plan now and the one it changes to, and one button. */
function confirmPage(ctx: BillingContext, session: PortalSessionObject, flow: PortalFlow) {
  const { subscription, items } = flow.subscription_update_confirm!
  const sub = ctx.store.subscriptions.get(subscription)!
  const describe = (price: {
    product: string
    unit_amount: number
    currency: string
    recurring: { interval: string }
  }) =>
    `${escapeHtml(ctx.store.products.get(price.product)?.name ?? '')} (${money(price.unit_amount, price.currency)} per ${escapeHtml(price.recurring.interval)})`
  const next = ctx.store.price(items[0].price)
  return page(
    'Confirm your update',
    `${returnLink(session)}<h1>Confirm your update</h1>
<p>Current plan: ${describe(sub.items.data[0].price)}</p>
<p>New plan: ${describe(next)}</p>
<form method="post" action="/portal/${escapeHtml(session.id)}"><input type="hidden" name="intent" value="confirm_update"><button type="submit">Confirm</button></form>`,
  )
}

function portalPage(ctx: BillingContext, session: PortalSessionObject, notice?: string) {
  const customer = ctx.store.customer(session.customer)
  const subs = [...ctx.store.subscriptions.values()].filter((sub) => sub.customer === customer.id)
  const invoices = [...ctx.store.invoices.values()].filter(
    (invoice) => invoice.customer === customer.id,
  )
  const invoiceRows = invoices
    .map(
      (invoice) =>
        `<li><a href="${escapeHtml(invoice.hosted_invoice_url)}">Invoice ${escapeHtml(invoice.number ?? invoice.id)}</a> — ${money(invoice.total, invoice.currency)} (${escapeHtml(invoice.status)})</li>`,
    )
    .join('')
  return page(
    'Billing portal',
    `${returnLink(session)}<h1>Manage your subscription</h1>
<p class="muted">${escapeHtml(customer.email ?? customer.id)}</p>
${notice ? `<p role="status">${escapeHtml(notice)}</p>` : ''}
${subs.length === 0 ? '<p>You have no subscriptions.</p>' : subs.map((sub) => subscriptionSection(ctx, session, sub)).join('')}
<section aria-labelledby="payment-method-heading"><h2 id="payment-method-heading">Payment method</h2>
<p><a href="/portal/${escapeHtml(session.id)}?view=payment_method">Update payment method</a></p></section>
<section aria-labelledby="invoices-heading"><h2 id="invoices-heading">Invoice history</h2>
<ul>${invoiceRows || '<li>No invoices yet.</li>'}</ul></section>`,
  )
}

function subscriptionSection(
  ctx: BillingContext,
  session: PortalSessionObject,
  sub: SubscriptionObject,
) {
  const item = sub.items.data[0]
  const product = ctx.store.products.get(item.price.product)
  const heading = `sub-${sub.id}`
  const action = `/portal/${escapeHtml(session.id)}`
  const hidden = `<input type="hidden" name="subscription" value="${escapeHtml(sub.id)}">`
  const price = `${money(item.price.unit_amount * item.quantity, item.price.currency)} per ${escapeHtml(item.price.recurring.interval)}`
  const state =
    sub.status === 'canceled'
      ? `Canceled on ${date(sub.ended_at ?? sub.canceled_at ?? ctx.store.now())}`
      : sub.cancel_at_period_end
        ? `Cancels on ${date(sub.cancel_at ?? item.current_period_end)}`
        : `Renews on ${date(item.current_period_end)}`
  const intro = `<section aria-labelledby="${heading}"><h2 id="${heading}">${escapeHtml(product?.name ?? item.price.id)}</h2>
<p>${price}</p><p>Status: ${escapeHtml(sub.status)}. ${state}.</p>`
  if (sub.status === 'canceled') return `${intro}</section>`
  if (sub.cancel_at_period_end) {
    return `${intro}<form method="post" action="${action}">${hidden}<input type="hidden" name="intent" value="resume"><button type="submit">Resume subscription</button></form></section>`
  }
  const options = FEEDBACK_OPTIONS.map(
    ([key, label]) => `<option value="${key}">${escapeHtml(label)}</option>`,
  ).join('')
  return `${intro}<form method="post" action="${action}">${hidden}
<label for="feedback-${sub.id}">Reason for canceling</label>
<select id="feedback-${sub.id}" name="feedback"><option value="">Choose a reason (optional)</option>${options}</select>
<label for="comment-${sub.id}">Anything else? (optional)</label>
<textarea id="comment-${sub.id}" name="comment" rows="2"></textarea>
<button type="submit" name="intent" value="cancel_at_period_end" class="danger">Cancel at period end</button></form></section>`
}

/** The portal's card form, from its homepage or a `payment_method_update` deep link. */
function paymentMethodPage(ctx: BillingContext, session: PortalSessionObject, error?: string) {
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
${CARD_FIELDS}
  <button type="submit">Save payment method</button>
</form>
<p class="muted">The new card is used for future payments and for the next retry of an unpaid invoice.</p>`,
  )
}

function updateCardFromPortal(
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
function completeFlow(
  ctx: BillingContext,
  res: ServerResponse,
  session: PortalSessionObject,
  notice: string,
) {
  const redirectTo = (session.flow as PortalFlow | null)?.after_completion.redirect?.return_url
  if (session.flow) ctx.store.completedPortalFlows.add(session.id)
  redirect(res, redirectTo ?? `/portal/${session.id}?notice=${notice}`)
}

function returnLink(session: PortalSessionObject) {
  const url = session.return_url
  return url ? `<p><a href="${escapeHtml(url)}">Return to site</a></p>` : ''
}
