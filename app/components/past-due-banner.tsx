import { Form } from '@remix-run/react'

import { type PastDueFacts, pastDueNotice, PAYMENT_METHOD_INTENT } from '~/subscriptions/status'

import { SubmitButton } from './forms'

/** A failed renewal's one fix: a new card (the provider's portal), then paying `payNow` with it. */
export function PastDueBanner({ subscription }: { subscription: PastDueFacts }) {
  const saved = subscription.payNow
  return (
    <div
      role="alert"
      className={`flex flex-col gap-3 rounded-md border px-4 py-3 text-sm sm:flex-row sm:items-center sm:justify-between ${saved ? 'border-amber-200 bg-amber-50 text-amber-900' : 'border-red-200 bg-red-50 text-red-800'}`}
    >
      <p>{pastDueNotice(subscription)}</p>
      <Form
        method="post"
        action="/dashboard/settings/billing"
        className="shrink-0 space-y-2 sm:w-56"
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
      </Form>
    </div>
  )
}
