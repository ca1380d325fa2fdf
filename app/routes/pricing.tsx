import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { getOptionalUserWith } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { billingProvider, billingProviders } from '~/billing/registry.server'
import { FormMessage } from '~/components/forms'
import { LeavingDoor } from '~/components/leaving-page'
import { BLOCK_BUTTON, TextLink } from '~/components/links'
import { PastDueBanner } from '~/components/past-due-banner'
import { formatDate, formatMoney } from '~/lib/pages/format'
import type { PageHandle } from '~/lib/pages/page-handle'
import { isLiveStatus } from '~/subscriptions/status'

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await getOptionalUserWith(request, accountSummaryOf(request))
  const subscription = summary?.subscription ?? null
  const providers = billingProviders()
  const plans = getPlans().map((plan) => ({
    key: plan.key,
    name: plan.name,
    description: plan.description,
    price: formatMoney(plan.amount, plan.currency),
    interval: plan.interval,
    features: plan.features,
    highlighted: plan.highlighted ?? false,
    // Signed out, each way to pay leads through sign-up to its checkout (a checkout links the
    // subscription to the user's id, so only a signed-in user gets the provider's own door).
    doors: providers.map(({ id, label, checkoutDoor }) => ({
      label: `Pay ${label}`,
      ...(user
        ? checkoutDoor(plan, user)
        : {
            href: `/sign-up?${new URLSearchParams({ redirectTo: `/subscribe/${plan.key}?provider=${id}` })}`,
          }),
    })),
  }))
  if (user) headers.set('Cache-Control', 'private, no-store')
  return data(
    {
      plans,
      providers: providers.map((provider) => provider.label).join(' or '),
      signedIn: Boolean(user),
      currentPlan:
        subscription && isLiveStatus(subscription.status) ? subscription.plan_name : null,
      endsOn: subscription?.cancel_at_period_end
        ? formatDate(subscription.cancel_at ?? subscription.current_period_end)
        : null,
      canceled: new URL(request.url).searchParams.get('canceled') === 'true',
      pastDue:
        subscription?.status === 'past_due'
          ? {
              payment_failed_at: subscription.payment_failed_at,
              payment_retry_at: subscription.payment_retry_at,
              help: billingProvider(subscription.provider)?.pastDueHelp,
            }
          : null,
    },
    { headers },
  )
}

export default function Pricing() {
  const { plans, providers, currentPlan, endsOn, canceled, pastDue, signedIn } =
    useLoaderData<typeof loader>()
  return (
    <div className="mx-auto max-w-5xl px-4 py-16">
      <div className="text-center">
        <h1 className="text-4xl font-bold tracking-tight">Plans and pricing</h1>
        <p className="mt-4 text-slate-700">
          Pay monthly {providers}. Cancel any time from your billing settings.
        </p>
        {signedIn ? null : (
          <p className="mt-2 text-sm text-slate-600">
            Have an account? <TextLink to="/sign-in?redirectTo=%2Fpricing">Sign in</TextLink>
          </p>
        )}
      </div>
      <div className="mx-auto mt-8 max-w-xl space-y-3">
        {canceled ? (
          <FormMessage tone="info">
            Checkout was canceled and you have not been charged. Pick a plan whenever you are ready.
          </FormMessage>
        ) : null}
        {pastDue ? <PastDueBanner subscription={pastDue} /> : null}
      </div>
      <ul className="mt-10 grid gap-6 md:grid-cols-2">
        {plans.map((plan) => (
          <li
            key={plan.key}
            aria-labelledby={`plan-${plan.key}`}
            className={`flex flex-col rounded-xl border p-6 ${plan.highlighted ? 'border-brand-600 shadow-md' : 'border-slate-200'}`}
          >
            <div className="flex items-center justify-between gap-2">
              <h2 id={`plan-${plan.key}`} className="text-xl font-semibold">
                {plan.name}
              </h2>
              {plan.name === currentPlan ? (
                <span className="rounded-full bg-brand-50 px-3 py-1 text-xs font-semibold text-brand-800">
                  Current plan{endsOn ? ` · ends ${endsOn}` : ''}
                </span>
              ) : null}
            </div>
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
              <PlanActions plan={plan} />
            </div>
          </li>
        ))}
      </ul>
    </div>
  )
}

type PricingPlan = ReturnType<typeof useLoaderData<typeof loader>>['plans'][number]

const secondaryButton =
  'block w-full rounded-md px-4 py-2 text-center text-sm font-semibold text-brand-700 hover:underline'

/** A plan card's ways to pay (the first provider's is the main one), or a subscriber's change. */
function PlanActions({ plan }: { plan: PricingPlan }) {
  const { signedIn, currentPlan } = useLoaderData<typeof loader>()
  if (currentPlan) {
    const change =
      plan.name !== currentPlan
        ? `/dashboard/settings/billing/change-plan?${new URLSearchParams({ plan: plan.key })}`
        : '/dashboard/settings/billing'
    return (
      <Link to={change} className={BLOCK_BUTTON}>
        {plan.name === currentPlan ? 'Manage your plan' : `Change to ${plan.name}`}
      </Link>
    )
  }
  // Plain forms and links: they work without JavaScript.
  return plan.doors.map((door, index) => {
    const className = index === 0 ? BLOCK_BUTTON : secondaryButton
    const lead = `${signedIn ? 'Subscribe to' : 'Get started with'} ${plan.name}: `
    const pendingText = signedIn ? 'Opening checkout…' : 'Loading…'
    return (
      <LeavingDoor key={door.label} door={door} className={className} pendingText={pendingText}>
        <span className="sr-only">{lead}</span>
        {door.label}
      </LeavingDoor>
    )
  })
}

// Anonymous visitors all get the same page: the server may answer them from one render.
export const handle: PageHandle = { sharedAnonymousRender: true }

export const meta: MetaFunction = () => [
  { title: 'Pricing | Subscribely' },
  {
    name: 'description',
    content: 'Starter and Pro plans, billed monthly, cancel any time.',
  },
]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
