import { data, type LoaderFunctionArgs, type MetaFunction, redirect } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'

import { accountSummaryOf, subscriptionView } from '~/account/summary.server'
import { takeEmailConfirmed } from '~/auth/confirmed-notice.server'
import { takeAfterSignUp } from '~/auth/plan-intent.server'
import { requireUserWith } from '~/auth/session.server'
import { billingProvider } from '~/billing/registry.server'
import { FormMessage } from '~/components/forms'
import { ButtonLink, TextLink } from '~/components/links'
import { PastDueBanner } from '~/components/past-due-banner'
import { SettingsSection } from '~/components/settings-section'
import { formatDate } from '~/lib/pages/format'
import { noticeByKey } from '~/lib/pages/notices'
import { pastDueSummary, statusLabel } from '~/subscriptions/status'

export async function loader({ request }: LoaderFunctionArgs) {
  const [session, { subscription }] = await requireUserWith(request, accountSummaryOf(request))
  const { user, headers } = session
  // Just confirmed by the emailed link (see confirmed-notice.server.ts): said once. When that
  // ended a password set elsewhere, she chooses her own first.
  const confirmed = await takeEmailConfirmed(request)
  if (confirmed.value) headers.append('Set-Cookie', confirmed.clear)
  if (confirmed.value === 'choose-password')
    throw redirect('/reset-password?notice=choose-password', { headers })
  const afterSignUp = await takeAfterSignUp(request)
  if (afterSignUp) {
    // On to the plan's checkout, which shows the confirmed address itself.
    headers.append('Set-Cookie', afterSignUp.clear)
    throw redirect(afterSignUp.next, { headers })
  }
  // Not shown again when ?notice=email-confirmed (the code on the check-email page) says it.
  const confirmedNotice =
    confirmed.value === '1' && new URL(request.url).searchParams.get('notice') !== 'email-confirmed'
      ? noticeByKey('email-confirmed')
      : null
  const help = billingProvider(subscription?.provider)?.pastDueHelp
  return data(
    {
      email: user.email,
      subscription: subscription && { ...subscriptionView(subscription), help },
      confirmedNotice,
    },
    { headers },
  )
}

export default function DashboardOverview() {
  const { email, subscription, confirmedNotice } = useLoaderData<typeof loader>()
  // A new subscription is `incomplete` until its first invoice is paid: no renewal yet. An ended
  // one may keep cancel_at_period_end (providers leave it set), so "canceled" is checked first.
  const nextDate =
    subscription?.status === 'past_due'
      ? pastDueSummary(subscription)
      : subscription?.status === 'incomplete'
        ? 'Confirming your first payment'
        : subscription?.status === 'trialing'
          ? `Trial ends ${formatDate(subscription.trial_end)}`
          : subscription?.status === 'canceled'
            ? `Canceled on ${formatDate(subscription.canceled_at)}`
            : subscription?.cancel_at_period_end
              ? `Cancels on ${formatDate(subscription.cancel_at ?? subscription.current_period_end)}`
              : `Renews on ${formatDate(subscription?.current_period_end)}`
  return (
    <div className="space-y-6">
      {confirmedNotice ? (
        <FormMessage tone={confirmedNotice.tone}>{confirmedNotice.text}</FormMessage>
      ) : null}
      {subscription?.status === 'past_due' ? <PastDueBanner subscription={subscription} /> : null}
      <div>
        <h1 className="text-3xl font-bold tracking-tight">Dashboard</h1>
        <p className="mt-1 text-slate-700">
          Signed in as <strong>{email}</strong>.
        </p>
      </div>
      <SettingsSection id="plan" title="Your plan">
        {subscription?.status ? (
          <div className="space-y-1">
            <p className="text-2xl font-bold">{subscription.plan_name ?? 'Unknown Plan'}</p>
            <p className="text-slate-700">
              Status: <strong>{statusLabel(subscription.status)}</strong> · {nextDate}
            </p>
            <p className="pt-2">
              <TextLink to="/dashboard/settings/billing">Billing and invoices</TextLink>
            </p>
          </div>
        ) : (
          <>
            <p className="text-slate-700">
              You are not subscribed yet. Pick a plan to unlock everything.
            </p>
            <ButtonLink to="/pricing">See plans</ButtonLink>
          </>
        )}
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Dashboard | Subscribely' }]
