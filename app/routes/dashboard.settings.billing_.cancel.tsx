import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { requireConfirmedUser, requireUser } from '~/auth/session.server'
import { scheduleCancel } from '~/billing/cancellation.server'
import { FormMessage, SubmitButton } from '~/components/forms'
import { TextLink } from '~/components/links'
import { formatDate } from '~/lib/pages/format'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'

/** /dashboard/settings/billing/cancel: what canceling means, and a plain form that does it. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { asUser, headers } = await requireUser(request)
  const row = await readOwnSubscription(asUser)
  const live = row && isLiveStatus(row.status) && !row.cancel_at_period_end
  return data(live ? { plan: row.plan_name, endsAt: row.current_period_end } : null, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  // A change of what the user pays: the auth server confirms the session first.
  const { user, asUser, headers } = await requireConfirmedUser(request)
  const error = await scheduleCancel(asUser, user.id, true)
  if (!error) throw redirect('/dashboard/settings/billing', { status: 303, headers })
  return data({ error }, { status: 502, headers })
}

export default function CancelSubscription() {
  const live = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold tracking-tight">Cancel your subscription</h1>
      <FormMessage tone="error">{actionData?.error}</FormMessage>
      {live ? (
        <>
          <p className="text-slate-700">
            You keep {live.plan} until {formatDate(live.endsAt)} and are not charged again. Until
            then you can resume it on the billing page.
          </p>
          <div className="flex flex-wrap items-center gap-4">
            <Form method="post" className="w-full max-w-xs">
              <SubmitButton variant="danger" pendingText="Canceling…">
                Cancel at period end
              </SubmitButton>
            </Form>
            <TextLink to="/dashboard/settings/billing">Keep my plan</TextLink>
          </div>
        </>
      ) : (
        <>
          <FormMessage tone="info">You do not have a subscription to cancel.</FormMessage>
          <TextLink to="/dashboard/settings/billing">Back to billing</TextLink>
        </>
      )}
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Cancel subscription | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
