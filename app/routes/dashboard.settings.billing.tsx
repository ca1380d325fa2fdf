import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'

import { accountSummaryOf, subscriptionView } from '~/account/summary.server'
import { requireConfirmedUser, requireUserWith } from '~/auth/session.server'
import { fillDeferredLookups } from '~/billing/deferred-lookups.server'
import { PLAN_DEFINITIONS } from '~/billing/plans'
import { getPlans } from '~/billing/plans.server'
import { openBillingPortal, scheduleCancel } from '~/billing/portal.server'
import { billingProvider, providerCallRefusal } from '~/billing/registry.server'
import { Detail } from '~/components/detail'
import { FormMessage, SubmitButton } from '~/components/forms'
import { ButtonLink, LINK, TextLink } from '~/components/links'
import { PastDueBanner } from '~/components/past-due-banner'
import { PaymentHistory } from '~/components/payment-history'
import { SettingsSection } from '~/components/settings-section'
import { UNKNOWN_FORM } from '~/lib/forms/form-reply'
import { formatDate, formatMoney } from '~/lib/pages/format'
import { readFormData } from '~/lib/server/http.server'
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
  const withLabel = subscription && {
    ...subscriptionView(subscription),
    planLabel: planWithPrice(subscription.plan_name, subscription.billing_cycle),
    payment: provider ? provider.label[0].toUpperCase() + provider.label.slice(1) : '—',
    help: provider?.pastDueHelp,
    live: isLiveStatus(subscription.status),
    scheduled: scheduled && isLiveStatus(subscription.status),
    // Back from the portal's card form (its return address says so).
    cardSaved: params.get('card') === 'saved',
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
  if (intent === 'cancel' || intent === 'resume') {
    const error = await scheduleCancel(asUser, user.id, intent === 'cancel')
    if (!error) throw redirect('/dashboard/settings/billing', { status: 303, headers })
    return data({ error }, { status: 502, headers })
  }
  // Only a named button opens the portal: a form re-sent here (a redirect) opens nothing.
  if (intent !== 'portal' && intent !== PAYMENT_METHOD_INTENT)
    return data({ error: UNKNOWN_FORM }, { status: 400, headers })
  const paymentMethod = intent === PAYMENT_METHOD_INTENT
  const outcome = await openBillingPortal(asUser, user.id, { paymentMethod })
  if (outcome.kind === 'url') throw redirect(outcome.url, { status: 303, headers })
  return data({ error: outcome.message }, { status: 502, headers })
}

/** "Pro · $29.00 / month" when billed at the catalogue's interval (made here: no catalogue in the bundle). */
function planWithPrice(name: string | null, cycle: string | null) {
  const plan = PLAN_DEFINITIONS.find((item) => item.name === name)
  if (!plan || (cycle && cycle !== plan.interval)) return name ?? 'Unknown Plan'
  return `${plan.name} · ${formatMoney(plan.amount, plan.currency)} / ${plan.interval}`
}

export default function Billing() {
  const { subscription, payments, page, pageCount, changes, confirmCancel } =
    useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const pastDue = subscription?.status === 'past_due'
  const openInvoice = pastDue
    ? payments.find((payment) => payment.status === 'failed' && payment.invoice_url)
    : undefined
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
            {pastDue ? (
              <PastDueBanner
                subscription={subscription}
                open={openInvoice}
                cardSaved={subscription.cardSaved}
              />
            ) : null}
            <dl className="grid gap-4 sm:grid-cols-2">
              <Detail label="Plan" value={subscription.planLabel} />
              <Detail label="Status" value={statusLabel(subscription.status)} />
              <Detail
                label="Billing cycle"
                value={subscription.billing_cycle ? `Every ${subscription.billing_cycle}` : '—'}
              />
              <Detail
                label="Current period"
                value={
                  subscription.current_period_start || subscription.current_period_end
                    ? `${formatDate(subscription.current_period_start)} – ${formatDate(subscription.current_period_end)}`
                    : '—'
                }
              />
              <Detail label="Payment" value={subscription.payment} />
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
              <Form method="post" className="w-full max-w-xs">
                {/* Past due, the banner's action is the one primary action of the page. */}
                <SubmitButton
                  name="intent"
                  value="portal"
                  pendingText="Opening billing portal…"
                  variant={pastDue ? 'secondary' : 'primary'}
                >
                  Manage billing
                </SubmitButton>
              </Form>
              {subscription.scheduled ? (
                <Form method="post" className="w-full max-w-xs">
                  <SubmitButton name="intent" value="resume" pendingText="Resuming…">
                    Resume subscription
                  </SubmitButton>
                </Form>
              ) : null}
              {changes.map((plan) => (
                <TextLink
                  key={plan.key}
                  to={`/dashboard/settings/billing/change-plan?plan=${plan.key}`}
                >
                  Change to {plan.name}
                </TextLink>
              ))}
              {!subscription.live ? (
                <TextLink to="/pricing">Choose a plan</TextLink>
              ) : subscription.scheduled || confirmCancel ? null : (
                <TextLink to="?cancel">Cancel subscription</TextLink>
              )}
            </div>
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
            <PaymentHistory payments={payments} payable={pastDue} />
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
