import { Form } from '@remix-run/react'

import { formatMoney, httpUrl } from '~/lib/pages/format'
import type { PaymentView } from '~/subscriptions/billing-overview.server'
import { type PastDueFacts, pastDueNotice, PAYMENT_METHOD_INTENT } from '~/subscriptions/status'

import { SubmitButton } from './forms'

/**
 * The notice of a failed renewal, with the one action that fixes it (the provider's portal,
 * through the billing page's action) and, with `open`, the open invoice to pay in a new tab.
 */
export function PastDueBanner({
  subscription,
  open,
  cardSaved = false,
}: {
  subscription: PastDueFacts
  open?: Pick<PaymentView, 'amount' | 'currency' | 'invoice_url'>
  cardSaved?: boolean
}) {
  const saved = cardSaved && open ? formatMoney(open.amount, open.currency) : undefined
  const invoice = httpUrl(open?.invoice_url)
  return (
    <div
      role="alert"
      className="flex flex-col gap-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 sm:flex-row sm:items-center sm:justify-between"
    >
      <p>{pastDueNotice(subscription, Date.now(), saved)}</p>
      <div className="flex flex-col gap-2 sm:w-56 sm:shrink-0">
        <Form method="post" action="/dashboard/settings/billing">
          <input type="hidden" name="intent" value={PAYMENT_METHOD_INTENT} />
          <SubmitButton pendingText="Opening billing portal…" variant="danger">
            Update payment method
          </SubmitButton>
        </Form>
        {invoice ? (
          <a
            href={invoice}
            target="_blank"
            rel="noreferrer"
            className="text-center font-semibold text-red-800 underline hover:no-underline"
          >
            {saved ? `Pay ${saved} now` : 'Pay the open invoice'}
          </a>
        ) : null}
      </div>
    </div>
  )
}
