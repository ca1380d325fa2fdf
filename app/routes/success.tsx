import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useLoaderData } from '@remix-run/react'
import { getPolarCheckoutStatus } from '~/billing/polar/checkout.server'
import { getStripeCheckoutStatus } from '~/billing/stripe/checkout.server'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { logger } from '~/lib/logger.server'

type Status = 'complete' | 'open' | 'failed'

// The page the hosted checkouts return to. It only reads the checkout's state: the
// subscription itself is activated by the provider's webhook, never here.
export async function loader({ request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams
  const sessionId = params.get('session_id')
  const checkoutId = params.get('checkout_id')
  let status: Status = 'failed'
  try {
    if (sessionId && /^cs_[A-Za-z0-9_]{1,200}$/.test(sessionId))
      status = await getStripeCheckoutStatus(sessionId)
    else if (checkoutId && /^[A-Za-z0-9_-]{1,100}$/.test(checkoutId))
      status = await getPolarCheckoutStatus(checkoutId)
  } catch (error) {
    logger.warn('success page: checkout lookup failed', { error: String(error) })
  }
  return data({ status }, { headers: { 'Cache-Control': 'private, no-store' } })
}

const COPY: Record<Status, { title: string; body: string }> = {
  complete: {
    title: 'Payment successful',
    body: 'Thank you for subscribing! Your plan appears in your dashboard as soon as the payment provider confirms it, usually within a few seconds.',
  },
  open: {
    title: 'Payment pending',
    body: 'Your payment is still being processed. We will update your subscription as soon as it completes; you can safely leave this page.',
  },
  failed: {
    title: 'Payment not completed',
    body: 'We could not confirm a payment for this checkout. You have not been charged; please try again from the pricing page.',
  },
}

export default function Success() {
  const { status } = useLoaderData<typeof loader>()
  const copy = COPY[status]
  return (
    <div className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold tracking-tight">{copy.title}</h1>
      <p className="mt-4 text-slate-700">{copy.body}</p>
      <div className="mt-8 flex justify-center gap-3">
        <Link
          to="/dashboard"
          className="rounded-md bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700"
        >
          Go to your dashboard
        </Link>
        {status === 'failed' ? (
          <Link
            to="/pricing"
            className="rounded-md border border-slate-300 px-4 py-2 text-sm font-semibold hover:bg-slate-50"
          >
            Back to pricing
          </Link>
        ) : null}
      </div>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Checkout | Subscribely' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
