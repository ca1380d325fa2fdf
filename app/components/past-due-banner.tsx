import { Form } from '@remix-run/react'

import { formatMoney, httpUrl } from '~/lib/pages/format'
import type { PaymentView } from '~/subscriptions/billing-overview.server'
import { type PastDueFacts, pastDueNotice, PAYMENT_METHOD_INTENT } from '~/subscriptions/status'

import { SubmitButton } from './forms'

/**
 * The notice of a failed renewal with the one action that fixes it (the provider's portal,
 * through the billing page's action) and, with `open`, the open invoice to pay in a new tab.
 * Once a new card is saved (`cardSaved`), paying the open invoice with it is that action.
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
  const invoice = saved ? undefined : httpUrl(open?.invoice_url)
  return (
    <div
      role="alert"
      className={`flex flex-col gap-3 rounded-md border px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between ${saved ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-red-200 bg-red-50 text-red-800'}`}
    >
      <p>{pastDueNotice(subscription, Date.now(), saved)}</p>
      <Form
        method="post"
        action="/dashboard/settings/billing"
        className="flex flex-col gap-2 sm:w-56 sm:shrink-0"
      >
        {saved ? (
          <SubmitButton name="intent" value="pay" pendingText="Paying…">
            Pay {saved} now
          </SubmitButton>
        ) : null}
        <SubmitButton
          name="intent"
          value={PAYMENT_METHOD_INTENT}
          pendingText="Opening billing portal…"
          variant={saved ? 'secondary' : 'danger'}
        >
          Update payment method
        </SubmitButton>
        {invoice ? (
          <a
            href={invoice}
            target="_blank"
            rel="noreferrer"
            className="text-center font-semibold text-red-800 underline hover:no-underline"
          >
            Pay the open invoice
          </a>
        ) : null}
      </Form>
    </div>
  )
}
