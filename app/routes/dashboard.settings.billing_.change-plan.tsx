import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { requireConfirmedUser, requireUser } from '~/auth/session.server'
import { getPlans } from '~/billing/plans.server'
import { billingProvider, providerCallRefusal } from '~/billing/registry.server'
import { FormMessage, SubmitButton } from '~/components/forms'
import { TextLink } from '~/components/links'
import { formatDate, formatMoney } from '~/lib/pages/format'
import { readFormData } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isPaidUpStatus } from '~/subscriptions/status'

/** ?plan=<key>: what a change costs and a form, or the provider portal's confirmation. */
const UNREACHABLE =
  'We could not reach the payment provider to work out the price of the change. Nothing has changed; please try again in a moment.'
const NONE = {
  kind: 'unavailable' as const,
  message: 'You do not have a subscription whose plan can be changed here.',
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, asUser, headers } = await requireUser(request)
  const planKey = new URL(request.url).searchParams.get('plan') ?? ''
  const limited = await providerCallRefusal(request, user.id, headers)
  if (limited) return data({ kind: 'unavailable' as const, message: limited.error }, limited.init)
  try {
    const row = await readOwnSubscription(asUser)
    const provider = billingProvider(row?.provider)
    if (provider?.planChange)
      return data(await provider.planChange.offer(row, user.id, planKey), { headers })
    // Elsewhere the portal confirms a paid-up subscription's change to another plan itself.
    const live = row && isPaidUpStatus(row.status) && !row.cancel_at_period_end
    const plan = getPlans().find(
      ({ key, name }) => live && key === planKey && name !== row.plan_name,
    )
    const outcome = plan && (await provider?.openPortal(row!, user.id, { plan }))
    if (outcome?.kind === 'url') return redirect(outcome.url, { headers })
    return data(NONE, { headers })
  } catch (error) {
    logger.error({ err: error }, 'plan change: offer failed')
    return data({ kind: 'unavailable' as const, message: UNREACHABLE }, { status: 502, headers })
  }
}

export async function action({ request }: ActionFunctionArgs) {
  // A change of what the user pays: the auth server confirms the session first.
  const { user, asUser, headers } = await requireConfirmedUser(request)
  const planKey = String((await readFormData(request, { headers })).get('plan') ?? '')
  const limited = await providerCallRefusal(request, user.id, headers)
  if (limited) return data({ error: limited.error }, limited.init)
  try {
    const row = await readOwnSubscription(asUser)
    const planChange = billingProvider(row?.provider)?.planChange
    const result = planChange ? await planChange.change(row, user.id, planKey) : NONE
    if (result.kind === 'changed')
      return redirect(`/dashboard/settings/billing?changed=${planKey}`, { status: 303, headers })
    return data({ error: result.message }, { status: 409, headers })
  } catch (error) {
    logger.error({ err: error }, 'plan change failed')
    return data(
      {
        error:
          'We could not change your plan. You have not been charged; please try again in a moment.',
      },
      { status: 502, headers },
    )
  }
}

export default function ChangePlan() {
  const outcome = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  if (outcome.kind !== 'offer') {
    return (
      <div className="space-y-6">
        <h1 className="text-3xl font-bold tracking-tight">Change plan</h1>
        <FormMessage tone="info">{outcome.message}</FormMessage>
        <TextLink to="/dashboard/settings/billing">Back to billing</TextLink>
      </div>
    )
  }
  const { current, target, preview } = outcome.offer
  const money = (amount: number) => formatMoney(amount, target.currency)
  return (
    <div className="space-y-6">
      <h1 className="text-3xl font-bold tracking-tight">Change to {target.name}</h1>
      <FormMessage tone="error">{actionData?.error}</FormMessage>
      <p className="text-slate-700">
        You are on {current.name} ({money(current.amount)} per {current.interval}). {target.name} is{' '}
        {money(target.amount)} per {target.interval}. The change takes effect now.
      </p>
      <section aria-labelledby="cost-heading" className="rounded-xl border border-slate-200 p-6">
        <h2 id="cost-heading" className="text-lg font-semibold">
          What it will cost
        </h2>
        {/* An invoice: its lines add up to the next invoice's total; then what is due today. */}
        <dl className="mt-4 divide-y divide-slate-200 text-sm">
          {[
            [`Credit for the unused part of ${current.name}`, `−${money(preview.credit)}`],
            [`${target.name} for the rest of this period`, money(preview.charge)],
            [`${target.name} from ${formatDate(preview.nextInvoiceDate)}`, money(target.amount)],
            ...(preview.carriedCredit > 0
              ? [['Credit kept for the invoices after that', money(preview.carriedCredit)]]
              : []),
            [
              `Next invoice on ${formatDate(preview.nextInvoiceDate)}:`,
              money(preview.nextInvoiceAmount),
            ],
          ].map(([label, value]) => (
            <div key={label} className="flex justify-between gap-4 py-2 last:font-semibold">
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
        <p className="mt-4 font-semibold">Due today: {money(0)}</p>
        <p className="mt-4 text-sm text-slate-700">
          After that, {target.name} renews at {money(target.amount)} per {target.interval}.
        </p>
      </section>
      <div className="flex flex-wrap items-center gap-4">
        <Form method="post" className="w-full max-w-xs">
          <input type="hidden" name="plan" value={target.key} />
          <SubmitButton pendingText="Changing plan…">Confirm change to {target.name}</SubmitButton>
        </Form>
        <TextLink to="/dashboard/settings/billing">Keep {current.name}</TextLink>
      </div>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Change plan | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
