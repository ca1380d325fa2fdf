import { getPlans, planByStripePrice } from '~/billing/plans.server'
import { getPolar } from '~/billing/polar/client.server'
import { getStripe } from '~/billing/stripe/client.server'
import { formatMoney } from '~/lib/pages/format'
import { logger } from '~/lib/server/logger.server'

/** What a completed checkout bought, as the success page names it. */
export interface CheckoutSummary {
  /** The plan's name ("Pro"), when the checkout is for one of ours. */
  plan: string | null
  /** "$29.00 per month": what was charged (Stripe) or the plan's price (Polar). */
  amount: string | null
  /** The address the receipt goes to: only for the checkout's own user, else null. */
  receiptTo: string | null
}

type Viewer = { id: string; email: string } | null

/**
 * Reads what a checkout the provider reports as complete was for. Only the signed-in user
 * the checkout was made for (its `user_id` metadata) is shown the address; anyone else with
 * the link sees the plan and amount only. Null when the provider cannot be asked: the page
 * then says what it said before.
 */
export async function summarizeCheckout(
  params: URLSearchParams,
  viewer: Viewer,
): Promise<CheckoutSummary | null> {
  const sessionId = params.get('session_id')
  const checkoutId = params.get('checkout_id')
  try {
    if (sessionId) return await stripeSummary(sessionId, viewer)
    if (checkoutId) return await polarSummary(checkoutId, viewer)
  } catch (error) {
    logger.warn({ err: error }, 'success page: checkout summary unavailable')
  }
  return null
}

const ownEmail = (viewer: Viewer, metadata: Record<string, unknown> | null | undefined) =>
  viewer && viewer.email && metadata?.user_id === viewer.id ? viewer.email : null

async function stripeSummary(sessionId: string, viewer: Viewer): Promise<CheckoutSummary> {
  const session = await getStripe().checkout.sessions.retrieve(sessionId, {
    expand: ['line_items'],
  })
  const price = session.line_items?.data[0]?.price
  const plan = planByStripePrice(price?.id)
  const interval = price?.recurring?.interval ?? plan?.interval
  const amount =
    session.amount_total !== null && session.currency
      ? `${formatMoney(session.amount_total, session.currency)}${interval ? ` per ${interval}` : ''}`
      : null
  return { plan: plan?.name ?? null, amount, receiptTo: ownEmail(viewer, session.metadata) }
}

async function polarSummary(checkoutId: string, viewer: Viewer): Promise<CheckoutSummary> {
  const checkout = await getPolar('checkout').checkouts.get(checkoutId)
  const plan = getPlans().find((item) => item.polarProductId === checkout.product_id)
  return {
    plan: plan?.name ?? null,
    amount: plan ? `${formatMoney(plan.amount, plan.currency)} per ${plan.interval}` : null,
    receiptTo: ownEmail(viewer, checkout.metadata as Record<string, unknown>),
  }
}
