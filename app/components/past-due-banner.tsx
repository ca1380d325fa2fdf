import { Form } from '@remix-run/react'
import { PAST_DUE_ACTION, PAST_DUE_NOTICE } from '~/subscriptions/status'
import { SubmitButton } from './forms'

/**
 * The notice of a failed renewal, with the action that fixes it: the billing page's action
 * opens the provider's billing portal, where the payment method is updated.
 */
export function PastDueBanner() {
  return (
    <div
      role="alert"
      className="flex flex-col gap-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800 sm:flex-row sm:items-center sm:justify-between"
    >
      <p>{PAST_DUE_NOTICE}</p>
      <Form method="post" action="/dashboard/settings/billing" className="sm:w-56 sm:shrink-0">
        <SubmitButton pendingText="Opening billing portal…" variant="danger">
          {PAST_DUE_ACTION}
        </SubmitButton>
      </Form>
    </div>
  )
}
