import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { useLoaderData } from '@remix-run/react'

import { getOptionalUser } from '~/auth/session.server'
import {
  type CheckoutStatus,
  hitCheckoutLookupLimit,
  lookupCheckoutStatus,
  summarizeCheckout,
} from '~/billing/checkout-status.server'
import { nextRecheck, RECHECK_SECONDS } from '~/billing/success-recheck'
import { MessagePage } from '~/components/error-boundary'
import { ButtonLink } from '~/components/links'

// Only reads: the webhook activates the subscription; the reload is a meta refresh (no script).
export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url)
  // Over the lookup budget: no provider is asked and the page does not reload itself.
  const limit = await hitCheckoutLookupLimit(request, url.searchParams)
  if (limit && !limit.allowed) {
    const headers = {
      'Cache-Control': 'private, no-store',
      'Retry-After': String(limit.retryAfterSeconds),
    }
    return data(
      { status: 'confirming' as CheckoutStatus, recheck: null, summary: null },
      { status: 429, headers },
    )
  }
  const status = await lookupCheckoutStatus(url.searchParams)
  const recheck = nextRecheck(url, status)
  const { user, headers } = await getOptionalUser(request)
  const summary = status === 'complete' ? await summarizeCheckout(url.searchParams, user) : null
  headers.set('Cache-Control', 'private, no-store')
  return data({ status, recheck, summary }, { headers })
}

const COPY: Record<CheckoutStatus, { title: string; body: string }> = {
  complete: {
    title: 'Payment successful',
    body: 'Thank you for subscribing! Your plan appears in your dashboard as soon as the payment provider confirms it, usually within a few seconds.',
  },
  open: {
    title: 'Payment pending',
    body: 'Your payment is still being processed. We will update your subscription as soon as it completes; you can safely leave this page.',
  },
  confirming: {
    title: 'Confirming your payment',
    body: 'We are waiting to hear back from the payment provider. If you paid, your plan appears in your dashboard as soon as the payment is confirmed; you can safely leave this page.',
  },
  failed: {
    title: 'Payment not completed',
    body: 'The payment provider reports that this checkout was not paid. You have not been charged; please try again from the pricing page.',
  },
  missing: {
    title: "We couldn't find that checkout",
    body: 'This address names no checkout the payment provider knows, so nothing was charged through it. Your dashboard shows your current plan; the pricing page starts a new subscription.',
  },
}

export default function Success() {
  const { status, recheck, summary } = useLoaderData<typeof loader>()
  const copy = COPY[status]
  const waiting = status === 'confirming' || status === 'open'
  return (
    <MessagePage
      title={copy.title}
      actions={
        <>
          <ButtonLink to="/dashboard">Go to your dashboard</ButtonLink>
          {status === 'failed' || status === 'missing' ? (
            <ButtonLink to="/pricing" variant="secondary">
              Back to pricing
            </ButtonLink>
          ) : null}
        </>
      }
    >
      {summary?.plan || summary?.amount ? (
        <p className="mt-4 text-lg font-semibold text-slate-900">
          {summary.plan ? `${summary.plan} plan` : 'Your plan'}
          {summary.amount ? `: ${summary.amount}` : ''}
        </p>
      ) : null}
      <p className="mt-4 text-slate-700">{copy.body}</p>
      {status === 'complete' ? (
        <p className="mt-2 text-sm text-slate-600">
          {summary?.receiptTo ? (
            <>
              Your receipt is on its way to <strong>{summary.receiptTo}</strong>; it is also in your
              billing history.
            </>
          ) : (
            'Your receipt is emailed to your account’s address and kept in your billing history.'
          )}
        </p>
      ) : null}
      {waiting ? (
        <p className="mt-2 text-sm text-slate-600" role="status">
          {recheck
            ? `This page checks again every ${RECHECK_SECONDS} seconds.`
            : 'It is taking longer than usual. Your dashboard shows the result as soon as it arrives.'}
        </p>
      ) : null}
    </MessagePage>
  )
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: 'Checkout | Subscribely' },
  ...(data?.recheck
    ? [{ httpEquiv: 'refresh', content: `${RECHECK_SECONDS};url=${data.recheck}` }]
    : []),
]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
