import { Form } from '@remix-run/react'

import {
  PAST_DUE_ACTION,
  type PastDueFacts,
  pastDueNotice,
  PAYMENT_METHOD_INTENT,
} from '~/subscriptions/status'

import { SubmitButton } from './forms'

/**
 * The notice of a failed renewal ("Payment failed on …; we will retry on …"), with the one
 * action that fixes it: the billing page's action opens the provider's portal, on its
 * payment-method form where it has one. With `payUrl`, the open invoice's
 * hosted page is offered too, as a link beside it.
 */
export function PastDueBanner({
  subscription,
  payUrl,
}: {
  subscription: PastDueFacts
  payUrl?: string | null
}) {
  return (
    <div
      role="alert"
      className="flex flex-col gap-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 sm:flex-row sm:items-center sm:justify-between"
    >
      <p>{pastDueNotice(subscription)}</p>
      <div className="flex flex-col gap-2 sm:w-56 sm:shrink-0">
        <Form method="post" action="/dashboard/settings/billing">
          <input type="hidden" name="intent" value={PAYMENT_METHOD_INTENT} />
          <SubmitButton pendingText="Opening billing portal…" variant="danger">
            {PAST_DUE_ACTION}
          </SubmitButton>
        </Form>
        {payUrl ? (
          <a
            href={payUrl}
            className="text-center font-semibold text-red-900 underline hover:no-underline"
          >
            Pay the open invoice
          </a>
        ) : null}
      </div>
    </div>
  )
}
