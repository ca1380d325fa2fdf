import { getEnv } from '~/env.server'

import { getPolar } from './client.server'

/** The events the app applies or logs (docs/polar.md, "Webhook endpoint"). */
const EVENTS = ['created', 'updated', 'active', 'canceled', 'uncanceled', 'revoked']
  .map((change) => `subscription.${change}`)
  .concat(['created', 'paid', 'updated', 'refunded'].map((change) => `order.${change}`))

/** What is wrong with the organization's webhook endpoint (`false` where a check passed). */
export async function polarPreflight() {
  const site = getEnv().SITE_URL
  const urls = [`${site}/api/webhooks/polar`, `${site}/api/webhooks/providerb`]
  const { items } = await getPolar('invoices').webhooks.listWebhookEndpoints({ limit: 100 })
  const endpoint = items.find((candidate) => urls.includes(candidate.url))
  if (!endpoint)
    return [
      `no webhook endpoint for ${urls[0]} (there are: ${items.map((e) => e.url).join(', ') || 'none'})`,
    ]
  const missing = EVENTS.filter((type) => !(endpoint.events as string[]).includes(type))
  return [
    !endpoint.enabled && `webhook endpoint ${endpoint.id} is disabled`,
    endpoint.format !== 'raw' &&
      `webhook endpoint ${endpoint.id} sends ${endpoint.format}, not raw`,
    missing.length > 0 && `webhook endpoint ${endpoint.id} does not send ${missing.join(', ')}`,
  ]
}
