import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData, useRevalidator } from '@remix-run/react'
import { useEffect } from 'react'

import { accountSummaryOf, subscriptionView } from '~/account/summary.server'
import { requireConfirmedUser, requireUserWith } from '~/auth/session.server'
import { fillDeferredLookups } from '~/billing/deferred-lookups.server'
import { getPlans } from '~/billing/plans.server'
import { changeSubscription, openBillingPortal } from '~/billing/portal.server'
import { billingProvider, providerCallRefusal } from '~/billing/registry.server'
import { FormMessage, SubmitButton } from '~/components/forms'
import { ButtonLink, LINK, TextLink } from '~/components/links'
import { PastDueBanner } from '~/components/past-due-banner'
import { PaymentHistory } from '~/components/payment-history'
import { SettingsSection } from '~/components/settings-section'
import { UNKNOWN_FORM } from '~/lib/forms/form-reply'
import { formatDate, formatMoney } from '~/lib/pages/format'
import { readFormData } from '~/lib/server/http.server'
import { upcomingInvoice } from '~/notifications/render'
import { getBillingOverview } from '~/subscriptions/billing-overview.server'
import {
  isLiveStatus,
  isPaidUpStatus,
  PAYMENT_METHOD_INTENT,
  statusLabel,
} from '~/subscriptions/status'

export async function loader({ request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams
  const asked = Number(params.get('page') ?? '1')
  const page = Number.isInteger(asked) && asked > 0 ? asked : 1
  const [{ headers }, overview] = await requireUserWith(
    request,
    accountSummaryOf(request, (asUser) => getBillingOverview(asUser, page)),
  )
  // Invoice links a webhook could not get are looked up now, bounded; the page never fails for them.
  const payments = await fillDeferredLookups(overview.payments)
  const { subscription, pageCount } = overview
  const provider = billingProvider(subscription?.provider)
  const scheduled = Boolean(subscription?.cancel_at_period_end)
  const changes =
    isPaidUpStatus(subscription?.status) && !scheduled
      ? getPlans()
          .filter((plan) => plan.name !== subscription?.plan_name)
          .map((plan) => ({ key: plan.key, name: plan.name }))
      : []
  // The catalogue's plan when billed at its interval, and the next invoice as the mails say it.
  const upcoming = subscription && upcomingInvoice({ ...subscription, ...overview.plan_change })
  const plan = upcoming?.plan
  const price = plan && formatMoney(plan.amount, plan.currency)
  const live = isLiveStatus(subscription?.status)
  const failed = payments.find((payment) => payment.status === 'failed')
  const owed = failed && formatMoney(failed.amount, failed.currency)
  const upper = (word: string) => word[0].toUpperCase() + word.slice(1)
  const { card_brand: brand, card_last4: last4 } = subscription ?? {}
  const withLabel = subscription && {
    ...subscriptionView(subscription),
    // The facts people look for, in the order they look.
    details: {
      Plan: plan ? `${plan.name} · ${price} / ${plan.interval}` : (subscription.plan_name ?? '—'),
      Status:
        scheduled && live
          ? `Canceling · ends ${formatDate(subscription.cancel_at ?? subscription.current_period_end)}`
          : statusLabel(subscription.status),
      'Next payment':
        isPaidUpStatus(subscription.status) && !scheduled && upcoming?.next
          ? `${upcoming.next}${brand && last4 ? ` · ${upper(brand)} •••• ${last4}` : ''}`
          : '—',
      Payment: provider ? upper(provider.label) : '—',
    },
    help: provider?.pastDueHelp,
    live,
    scheduled: scheduled && live,
    owed,
    // Back from the portal's card form (its return address says so): the failed payment's amount.
    payNow: params.get('card') === 'saved' && provider?.payOpenInvoice ? owed : undefined,
    // Back from a plan change (the app's or the portal's): its plan, named by the catalogue.
    changedTo: getPlans().find((plan) => plan.key === params.get('changed'))?.name,
  }
  const confirmCancel = params.has('cancel')
  return data(
    { subscription: withLabel, payments, page: overview.page, pageCount, changes, confirmCancel },
    { headers },
  )
}

export async function action({ request }: ActionFunctionArgs) {
  // The portal can cancel the subscription and change the card: the auth server confirms.
  const { user, asUser, headers } = await requireConfirmedUser(request)
  const intent = (await readFormData(request, { headers })).get('intent')
  const limited = await providerCallRefusal(request, user.id, headers)
  if (limited) return data({ error: limited.error }, limited.init)
  if (intent === 'cancel' || intent === 'resume' || intent === 'pay') {
    const error = await changeSubscription(asUser, user.id, intent)
    const notice = { cancel: '', resume: '?notice=plan-resumed', pay: '?notice=invoice-paid' }
    if (!error)
      throw redirect(`/dashboard/settings/billing${notice[intent]}`, { status: 303, headers })
    return data({ error }, { status: 502, headers })
  }
  // Only a named button opens the portal: a form re-sent here (a redirect) opens nothing.
  if (intent !== 'portal' && intent !== PAYMENT_METHOD_INTENT)
    return data({ error: UNKNOWN_FORM }, { status: 400, headers })
  const paymentMethod = intent === PAYMENT_METHOD_INTENT
  const outcome = await openBillingPortal(asUser, user.id, { paymentMethod })
  if ('url' in outcome) throw redirect(outcome.url, { status: 303, headers })
  return data(outcome, { status: 502, headers })
}

export default function Billing() {
  const { subscription, payments, page, pageCount, changes, confirmCancel } =
    useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const { revalidate } = useRevalidator()
  // Another tab may have paid or changed the plan: shown again, the page asks again.
  useEffect(() => {
    const listening = new AbortController()
    const shown = () => document.visibilityState === 'visible' && revalidate()
    window.addEventListener('focus', shown, listening)
    document.addEventListener('visibilitychange', shown, listening)
    return () => listening.abort()
  }, [revalidate])
  const pastDue = subscription?.status === 'past_due'
  const settled = subscription?.live && !pastDue && !subscription.scheduled
  const periodEnd = formatDate(subscription?.cancel_at ?? subscription?.current_period_end)
  const notice = !subscription
    ? null
    : subscription.scheduled
      ? `Scheduled to cancel on ${periodEnd}. You keep ${subscription.plan_name} until then; to keep it after that, choose Resume subscription below.`
      : subscription.status === 'canceled'
        ? `Your subscription was canceled${subscription.canceled_at ? ` on ${formatDate(subscription.canceled_at)}` : ''}.`
        : subscription.status === 'trialing' && subscription.trial_end
          ? `Your trial ends on ${formatDate(subscription.trial_end)}.`
          : null
  return (
    <div className="space-y-8">
      <h1 className="text-3xl font-bold tracking-tight">Billing</h1>
      <FormMessage tone="error">{actionData?.error}</FormMessage>
      <FormMessage tone="success">
        {subscription?.changedTo &&
          `Your plan is now ${subscription.changedTo}. The difference is settled on your next invoice.`}
      </FormMessage>
      <SettingsSection id="subscription" title="Current subscription">
        {subscription?.status ? (
          <>
            <FormMessage tone="info">{notice}</FormMessage>
            {pastDue ? <PastDueBanner subscription={subscription} /> : null}
            <dl className="grid gap-4 sm:grid-cols-2">
              {Object.entries(subscription.details).map(([label, value]) => (
                <div key={label}>
                  <dt className="text-sm text-slate-600">{label}</dt>
                  <dd className="font-medium text-slate-900">{value}</dd>
                </div>
              ))}
            </dl>
            {confirmCancel && subscription.live && !subscription.scheduled ? (
              <Form method="post" className="max-w-md space-y-4 rounded-md border p-4">
                <p>
                  Cancel {subscription.plan_name}? You keep it until {periodEnd} and are not charged
                  again; until then you can resume it here.
                </p>
                <SubmitButton
                  name="intent"
                  value="cancel"
                  variant="danger"
                  pendingText="Canceling…"
                >
                  Cancel at period end
                </SubmitButton>
                <TextLink to="/dashboard/settings/billing">Keep my plan</TextLink>
              </Form>
            ) : null}
            <div className="mt-6 flex flex-wrap items-center gap-4">
              <Form method="post" className="w-full max-w-xs space-y-2">
                {subscription.scheduled ? (
                  <SubmitButton name="intent" value="resume" pendingText="Resuming…">
                    Resume subscription
                  </SubmitButton>
                ) : null}
                <SubmitButton
                  name="intent"
                  value="portal"
                  pendingText="Opening billing portal…"
                  variant={settled ? 'primary' : 'secondary'}
                >
                  Manage billing
                </SubmitButton>
              </Form>
              {changes.map((plan) => (
                <TextLink
                  key={plan.key}
                  to={`/dashboard/settings/billing/change-plan?plan=${plan.key}`}
                >
                  Change to {plan.name}
                </TextLink>
              ))}
              {subscription.live ? null : <ButtonLink to="/pricing">Choose a plan</ButtonLink>}
            </div>
            {subscription.live && !subscription.scheduled && !confirmCancel ? (
              <p className="mt-8 border-t border-slate-200 pt-4">
                <Link to="?cancel" className="text-sm font-semibold text-red-700 hover:underline">
                  Cancel subscription
                </Link>
              </p>
            ) : null}
          </>
        ) : (
          <>
            <p className="text-slate-700">You do not have a subscription yet.</p>
            <ButtonLink to="/pricing">Choose a plan</ButtonLink>
          </>
        )}
      </SettingsSection>
      <SettingsSection id="payments" title="Payment history">
        {payments.length === 0 ? (
          <p className="text-slate-700">No payments yet.</p>
        ) : (
          <>
            <a href="/dashboard/settings/billing/payments.csv" className={LINK} download>
              Download the history as CSV
            </a>
            <PaymentHistory payments={payments} payable={pastDue && !subscription?.payNow} />
            {pageCount > 1 ? (
              <nav
                aria-label="Payment history pages"
                className="flex items-center justify-between text-sm"
              >
                {page > 1 ? <Link to={`?page=${page - 1}`}>Newer payments</Link> : <span />}
                <span>
                  Page {page} of {pageCount}
                </span>
                {page < pageCount ? <Link to={`?page=${page + 1}`}>Older payments</Link> : <span />}
              </nav>
            ) : null}
          </>
        )}
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Billing | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
