import { type LoaderFunctionArgs, redirect } from '@remix-run/node'

import { requireUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { polarCheckoutPath } from '~/billing/polar/checkout.server'
import { createStripeCheckout } from '~/billing/stripe/checkout.server'
import { logger } from '~/lib/server/logger.server'

/**
 * GET /subscribe/:plan: the way from a plan on the pricing page to its hosted checkout for a
 * visitor who first had to sign up or sign in (they come back here with the plan kept).
 * Stripe unless `?provider=polar`. A browser always gets a page: sign-in when signed out,
 * billing when already subscribed, pricing with a message when the plan is unknown or the
 * provider fails.
 */
export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { user, asUser, headers } = await requireUser(request)
  const plan = getPlans().find((candidate) => candidate.key === params.plan)
  if (!plan) return redirect('/pricing?notice=unknown-plan', { headers })
  const provider = new URL(request.url).searchParams.get('provider')
  if (provider === 'polar')
    return redirect(polarCheckoutPath(plan.polarProductId, user), { headers })
  try {
    const outcome = await createStripeCheckout(asUser, user, plan.stripePriceId)
    if (outcome.kind === 'already-subscribed')
      return redirect('/dashboard/settings/billing?notice=already-subscribed', { headers })
    return redirect(outcome.url, { status: 303, headers })
  } catch (error) {
    logger.error({ err: error, user: user.id }, 'subscribe: stripe checkout failed')
    return redirect('/pricing?notice=checkout-failed', { headers })
  }
}
