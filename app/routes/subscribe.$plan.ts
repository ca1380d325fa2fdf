import { type LoaderFunctionArgs, redirect } from '@remix-run/node'

import { requireUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { billingProvider, billingProviders, providerCallRefusal } from '~/billing/registry.server'
import { logger } from '~/lib/server/logger.server'

/** Back here after signing up or in, the plan kept, on the way to its hosted checkout. */
export const loader = async ({ request, params }: LoaderFunctionArgs) => {
  const { user, asUser, headers } = await requireUser(request)
  const plan = getPlans().find((candidate) => candidate.key === params.plan)
  const named = new URL(request.url).searchParams.get('provider')
  const provider = named ? billingProvider(named) : billingProviders()[0]
  if (!plan || !provider) return redirect('/pricing?notice=unknown-plan', { headers })
  const failed = () => redirect('/pricing?notice=checkout-failed', { headers })
  if (await providerCallRefusal(request, user.id, headers)) return failed()
  try {
    return redirect(await provider.startCheckout(asUser, user, plan), { status: 303, headers })
  } catch (error) {
    logger.error({ err: error, user: user.id, provider: provider.id }, 'subscribe: checkout failed')
    return failed()
  }
}
