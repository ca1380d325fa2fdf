import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { getOptionalUserWith } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { polarCheckoutPath } from '~/billing/polar/checkout.server'
import { FormMessage } from '~/components/forms'
import { LeavingForm, LeavingLink } from '~/components/leaving-page'
import { TextLink } from '~/components/links'
import { PastDueBanner } from '~/components/past-due-banner'
import { formatMoney } from '~/lib/pages/format'
import type { PageHandle } from '~/lib/pages/page-handle'
import { isLiveStatus } from '~/subscriptions/status'

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await getOptionalUserWith(request, accountSummaryOf(request))
  const subscription = summary?.subscription ?? null
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
    polarCheckoutUrl: user ? polarCheckoutPath(plan.polarProductId, user) : null,
  }))
  if (user) headers.set('Cache-Control', 'private, no-store')
  return data(
    {
      plans,
      signedIn: Boolean(user),
      currentPlan:
        subscription && isLiveStatus(subscription.status) ? subscription.plan_name : null,
      // Polar subscribers change plan in the app; Stripe subscribers in Stripe's portal.
      changeInApp: subscription?.provider === 'polar',
      canceled: new URL(request.url).searchParams.get('canceled') === 'true',
      pastDue:
        subscription?.status === 'past_due'
          ? {
              provider: subscription.provider,
              payment_failed_at: subscription.payment_failed_at,
              payment_retry_at: subscription.payment_retry_at,
            }
          : null,
    },
    { headers },
  )
}

export default function Pricing() {
  const { plans, currentPlan, canceled, pastDue } = useLoaderData<typeof loader>()
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
        {/* The same notice and action as the dashboard and billing pages. */}
        {pastDue ? <PastDueBanner subscription={pastDue} /> : null}
        {currentPlan ? (
          <FormMessage tone="info">
            You are subscribed to {currentPlan}.{' '}
            <Link to="/dashboard/settings/billing" className="font-semibold underline">
              Manage or change your plan in billing
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
            <div className="flex items-center justify-between gap-2">
              <h2 id={`plan-${plan.key}`} className="text-xl font-semibold">
                {plan.name}
              </h2>
              {plan.name === currentPlan ? (
                <span className="rounded-full bg-brand-50 px-3 py-1 text-xs font-semibold text-brand-800">
                  Current plan
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

const primaryButton =
  'block w-full rounded-md bg-brand-600 px-4 py-2 text-center text-sm font-semibold text-white hover:bg-brand-700 aria-disabled:opacity-70'

/**
 * What a plan card offers. A newcomer: one call to action, which keeps the chosen plan
 * through sign-up (or sign-in) and lands on its checkout. A subscriber: the current plan is
 * marked and managed, the others are changed, in billing. Anyone else: subscribe, with Stripe
 * first and Polar as the secondary choice.
 */
function PlanActions({ plan }: { plan: PricingPlan }) {
  const { signedIn, currentPlan, changeInApp } = useLoaderData<typeof loader>()
  if (!signedIn) {
    const next = `/subscribe/${plan.key}`
    return (
      <>
        <Link
          to={`/sign-up?${new URLSearchParams({ redirectTo: next })}`}
          className={primaryButton}
        >
          Get started with {plan.name}
        </Link>
        <p className="text-center text-sm text-slate-600">
          Have an account?{' '}
          <TextLink
            to={`/sign-in?${new URLSearchParams({ redirectTo: next })}`}
            aria-label={`Sign in to subscribe to ${plan.name}`}
          >
            Sign in
          </TextLink>
        </p>
      </>
    )
  }
  if (currentPlan) {
    const change =
      changeInApp && plan.name !== currentPlan
        ? `/dashboard/settings/billing/change-plan?${new URLSearchParams({ plan: plan.key })}`
        : '/dashboard/settings/billing'
    return (
      <Link to={change} className={primaryButton}>
        {plan.name === currentPlan ? 'Manage your plan' : `Change to ${plan.name}`}
      </Link>
    )
  }
  return (
    <>
      {/* A plain form: the API answers 303 to Stripe, so it works without JavaScript. */}
      <LeavingForm
        action="/api/checkout_sessions"
        fields={{ price_id: plan.stripePriceId }}
        className={primaryButton}
        pendingText="Opening checkout…"
      >
        Subscribe to {plan.name} with Stripe
      </LeavingForm>
      {plan.polarCheckoutUrl ? (
        <LeavingLink
          href={plan.polarCheckoutUrl}
          className="block rounded-md px-4 py-2 text-center text-sm font-semibold text-brand-700 hover:underline"
          pendingText="Opening checkout…"
        >
          Subscribe to {plan.name} with Polar
        </LeavingLink>
      ) : null}
    </>
  )
}

// Anonymous visitors all get the same page: the server may answer them from one render.
export const handle: PageHandle = { sharedAnonymousRender: true }

export const meta: MetaFunction = () => [
  { title: 'Pricing | Subscribely' },
  {
    name: 'description',
    content: 'Starter and Pro plans, billed monthly through Stripe or Polar.',
  },
]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
