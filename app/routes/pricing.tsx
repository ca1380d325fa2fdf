import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { getOptionalUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { formatMoney } from '~/lib/format'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { FormMessage } from '~/components/forms'
import { getOwnSubscription, LIVE_STATUSES } from '~/subscriptions/store.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, supabase, headers } = await getOptionalUser(request)
  const subscription = user ? await getOwnSubscription(supabase, user.id) : null
  const url = new URL(request.url)
  const plans = getPlans().map((plan) => ({
    key: plan.key,
    name: plan.name,
    description: plan.description,
    price: formatMoney(plan.amount, plan.currency),
    interval: plan.interval,
    features: plan.features,
    highlighted: plan.highlighted ?? false,
    stripePriceId: plan.stripePriceId,
    // Built only for signed-in users: the checkout links the subscription to their id.
    polarCheckoutUrl: user
      ? `/api/checkout?${new URLSearchParams({
          products: plan.polarProductId,
          customerEmail: user.email,
          metadata: JSON.stringify({ user_id: user.id }),
        })}`
      : null,
  }))
  if (user) headers.set('Cache-Control', 'private, no-store')
  return data(
    {
      plans,
      signedIn: Boolean(user),
      currentPlan:
        subscription?.status && LIVE_STATUSES.has(subscription.status)
          ? subscription.plan_name
          : null,
      canceled: url.searchParams.get('canceled') === 'true',
    },
    { headers },
  )
}

export default function Pricing() {
  const { plans, signedIn, currentPlan, canceled } = useLoaderData<typeof loader>()
  return (
    <div className="mx-auto max-w-5xl px-4 py-16">
      <div className="text-center">
        <h1 className="text-4xl font-bold tracking-tight">Plans and pricing</h1>
        <p className="mt-4 text-slate-700">
          Pay monthly with Stripe or Polar. Cancel any time from your billing settings.
        </p>
      </div>
      <div className="mx-auto mt-8 max-w-xl space-y-3">
        {canceled ? (
          <FormMessage tone="info">
            Checkout was canceled and you have not been charged. Pick a plan whenever you are ready.
          </FormMessage>
        ) : null}
        {currentPlan ? (
          <FormMessage tone="info">
            You are subscribed to {currentPlan}.{' '}
            <Link to="/dashboard/settings/billing" className="font-semibold underline">
              Manage your billing
            </Link>
          </FormMessage>
        ) : null}
      </div>
      <ul className="mt-10 grid gap-6 md:grid-cols-2">
        {plans.map((plan) => (
          <li
            key={plan.key}
            aria-labelledby={`plan-${plan.key}`}
            className={`flex flex-col rounded-xl border p-6 ${plan.highlighted ? 'border-brand-600 shadow-md' : 'border-slate-200'}`}
          >
            <h2 id={`plan-${plan.key}`} className="text-xl font-semibold">
              {plan.name}
            </h2>
            <p className="mt-1 text-sm text-slate-700">{plan.description}</p>
            <p className="mt-4">
              <span className="text-4xl font-bold">{plan.price}</span>
              <span className="text-slate-600"> / {plan.interval}</span>
            </p>
            <ul className="mt-6 flex-1 space-y-2 text-sm text-slate-800">
              {plan.features.map((feature) => (
                <li key={feature} className="flex gap-2">
                  <span aria-hidden="true" className="text-brand-700">
                    ✓
                  </span>
                  {feature}
                </li>
              ))}
            </ul>
            <div className="mt-6 space-y-2">
              {!signedIn ? (
                <Link
                  to={`/sign-in?${new URLSearchParams({ redirectTo: '/pricing' })}`}
                  className="block rounded-md bg-brand-600 px-4 py-2 text-center text-sm font-semibold text-white hover:bg-brand-700"
                >
                  Sign in to subscribe to {plan.name}
                </Link>
              ) : currentPlan ? null : (
                <>
                  {/* A plain form: the API answers 303 to Stripe, so it works without JavaScript. */}
                  <form method="post" action="/api/checkout_sessions">
                    <input type="hidden" name="price_id" value={plan.stripePriceId} />
                    <button
                      type="submit"
                      className="w-full rounded-md bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700"
                    >
                      Subscribe to {plan.name} with Stripe
                    </button>
                  </form>
                  {plan.polarCheckoutUrl ? (
                    <a
                      href={plan.polarCheckoutUrl}
                      className="block rounded-md border border-slate-300 px-4 py-2 text-center text-sm font-semibold text-slate-900 hover:bg-slate-50"
                    >
                      Subscribe to {plan.name} with Polar
                    </a>
                  ) : null}
                </>
              )}
            </div>
          </li>
        ))}
      </ul>
    </div>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Pricing | Subscribely' },
  {
    name: 'description',
    content: 'Starter and Pro plans, billed monthly through Stripe or Polar.',
  },
]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
