import Stripe from 'stripe'

import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'

import { getStripe } from './client.server'

/** The events `applyStripeEvent` applies. */
const EVENTS = ['created', 'updated', 'deleted'].map((change) => `customer.subscription.${change}`)
EVENTS.push('invoice.payment_succeeded', 'invoice.payment_failed')

/** What is wrong with the account's webhook endpoint and portal (`false` where a check passed). */
export async function stripePreflight() {
  const { SITE_URL: site, STRIPE_PORTAL_CONFIGURATION_ID: id } = getEnv()
  const urls = [`${site}/api/webhooks/stripe`, `${site}/api/webhooks/providera`]
  const { data } = await getStripe().webhookEndpoints.list({ limit: 100 })
  const endpoint = data.find((candidate) => urls.includes(candidate.url))
  const portal = getStripe().billingPortal.configurations
  const configuration = id
    ? await portal.retrieve(id)
    : (await portal.list({ is_default: true, limit: 1 })).data[0]
  const update = configuration?.features.subscription_update
  const prices = new Set(update?.products?.flatMap((product) => product.prices))
  const absent = getPlans().filter((plan) => !prices.has(plan.stripePriceId))
  if (!endpoint)
    return [
      `no webhook endpoint for ${urls[0]} (there are: ${data.map((e) => e.url).join(', ') || 'none'})`,
    ]
  const named = `webhook endpoint ${endpoint.id}`
  const missing = EVENTS.filter(
    (type) => !['*', type].some((e) => endpoint.enabled_events.includes(e)),
  )
  return [
    endpoint.status !== 'enabled' && `${named} is ${endpoint.status}`,
    missing.length > 0 && `${named} does not send ${missing.join(', ')}`,
    endpoint.api_version !== Stripe.API_VERSION &&
      `${named} sends API version ${endpoint.api_version}, not ${Stripe.API_VERSION}`,
    !update?.enabled &&
      `portal configuration ${configuration?.id} does not let customers change plans`,
    !!update?.enabled &&
      absent.length > 0 &&
      `portal configuration ${configuration?.id} does not offer ${absent.map((plan) => plan.name).join(', ')}`,
  ]
}
