import { nextInvoice } from '~/billing/plans'
import { getPlans, type Plan } from '~/billing/plans.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { isPaidUpStatus } from '~/subscriptions/status'
import { applyProviderAnswer } from '~/subscriptions/store.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import type { PlanChangeOffer, Unavailable } from '../provider'
import { getPolar } from './client.server'
import { polarSubscriptionFields, PolarSubscriptionSchema, polarUserLink } from './events'

const unavailable = (message: string): Unavailable => ({ kind: 'unavailable', message })
const NO_SUBSCRIPTION = 'You do not have a Polar subscription to change.'

const pick = ({ ids: _ids, ...plan }: Plan) => plan

/** From Polar (its period and product, not the row's), or why it cannot change; failures throw. */
export async function polarPlanChangeOffer(
  row: SubscriptionRow | null,
  userId: string,
  planKey: string,
  at = Date.now(),
): Promise<{ kind: 'offer'; offer: PlanChangeOffer } | Unavailable> {
  const plans = getPlans()
  const target = plans.find((plan) => plan.key === planKey)
  if (!target) return unavailable('That plan does not exist.')
  if (row?.provider !== 'polar' || !row.polar_subscription_id) return unavailable(NO_SUBSCRIPTION)
  const subscription = PolarSubscriptionSchema.parse(
    await getPolar('checkout').subscriptions.get(row.polar_subscription_id),
  )
  if (polarUserLink(subscription).userId !== userId) return unavailable(NO_SUBSCRIPTION)
  if (subscription.cancel_at_period_end)
    return unavailable(
      'Your subscription is set to cancel. Resume it first, then change your plan.',
    )
  if (!isPaidUpStatus(subscription.status))
    return unavailable(
      subscription.status === 'past_due'
        ? 'Your last payment failed. Update your payment method first, then change your plan.'
        : 'Your subscription is not active, so its plan cannot be changed.',
    )
  const current = plans.find((plan) => plan.ids.polar === subscription.product_id)
  if (!current) return unavailable('Your current plan cannot be changed here.')
  if (current.key === target.key) return unavailable(`You are already on the ${target.name} plan.`)
  const { current_period_start: start, current_period_end: end } = subscription
  if (!start || !end) return unavailable('Your subscription has no current billing period.')
  const preview = nextInvoice({ start, end }, current.amount, target.amount, at)
  return {
    kind: 'offer',
    offer: {
      subscriptionId: subscription.id,
      current: pick(current),
      target: pick(target),
      preview,
    },
  }
}

/** Polar's answer is applied at once; its refusals become a reason, other failures throw. */
export async function changePolarPlan(
  row: SubscriptionRow | null,
  userId: string,
  planKey: string,
): Promise<{ kind: 'changed'; planName: string } | Unavailable> {
  const outcome = await polarPlanChangeOffer(row, userId, planKey)
  if (outcome.kind === 'unavailable') return outcome
  const { offer } = outcome
  const target = getPlans().find((plan) => plan.key === offer.target.key)!
  let updated: unknown
  try {
    updated = await getPolar('checkout').subscriptions.update(offer.subscriptionId, {
      product_id: target.ids.polar,
      proration_behavior: 'prorate',
    })
  } catch (error) {
    const status = httpStatusOf(error)
    if (status === 403 || status === 409) {
      logger.warn({ user: userId, status }, 'polar plan change refused')
      return unavailable(
        status === 409
          ? 'Another change to your subscription is being applied. Please try again in a minute.'
          : 'Your subscription cannot be changed right now (it is set to cancel or a payment is due).',
      )
    }
    throw error
  }
  const subscription = PolarSubscriptionSchema.parse(updated)
  const fields = polarSubscriptionFields('subscription.updated', subscription)
  if (fields && subscription.modified_at)
    await applyProviderAnswer('polar', 'plan_change', userId, {
      fields,
      occurredAt: subscription.modified_at,
    })
  logger.info({ user: userId, plan: target.key }, 'polar plan changed')
  return { kind: 'changed', planName: target.name }
}
