import Stripe from 'stripe'

import { getPlans } from '~/billing/plans.server'
import { getEnv } from '~/env.server'

import { getStripe } from './client.server'

/** The events `applyStripeEvent` applies (webhook.server.ts). */
const EVENTS = ['created', 'updated', 'deleted']
  .map((change) => `customer.subscription.${change}`)
  .concat(['invoice.payment_succeeded', 'invoice.payment_failed'])

/** What is wrong with the account's webhook endpoint and portal, as this key reads them. */
export async function stripePreflight(): Promise<string[]> {
  const { SITE_URL: site, STRIPE_PORTAL_CONFIGURATION_ID: configurationId } = getEnv()
  const urls = [`${site}/api/webhooks/stripe`, `${site}/api/webhooks/providera`]
  const { data } = await getStripe().webhookEndpoints.list({ limit: 100 })
  const endpoint = data.find((candidate) => urls.includes(candidate.url))
  const sent = new Set(endpoint?.enabled_events)
  const missing = EVENTS.filter((type) => !sent.has(type) && !sent.has('*'))
  const portal = getStripe().billingPortal.configurations
  const configuration = configurationId
    ? await portal.retrieve(configurationId)
    : (await portal.list({ is_default: true, limit: 1 })).data[0]
  const update = configuration?.features.subscription_update
  const offered = new Set(update?.products?.flatMap((product) => product.prices))
  const absent = getPlans().filter((plan) => !offered.has(plan.stripePriceId))
  return [
    endpoint
      ? ''
      : `no webhook endpoint for ${urls[0]} (the account has: ${data.map((item) => item.url).join(', ') || 'none'})`,
    !endpoint || endpoint.status === 'enabled'
      ? ''
      : `webhook endpoint ${endpoint.id} is ${endpoint.status}`,
    endpoint && missing.length
      ? `webhook endpoint ${endpoint.id} does not send ${missing.join(', ')}`
      : '',
    !endpoint || endpoint.api_version === Stripe.API_VERSION
      ? ''
      : `webhook endpoint ${endpoint.id} sends API version ${endpoint.api_version ?? "the account's default"}, not ${Stripe.API_VERSION}`,
    update?.enabled && update.default_allowed_updates.includes('price')
      ? ''
      : `portal configuration ${configuration?.id ?? '(default)'} does not let customers change plans`,
    update?.enabled && absent.length
      ? `portal configuration ${configuration?.id} does not offer ${absent.map((plan) => plan.name).join(', ')}`
      : '',
  ].filter(Boolean)
}
