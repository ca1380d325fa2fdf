/**
 * `/v1/webhook_endpoints`: the emulator's one endpoint (the URL it was given), listed,
 * retrieved and updated, so it can be disabled and enabled as on Stripe
 * (docs.stripe.com/api/webhook_endpoints/update, `disabled`).
 */
import { text } from './checkout'
import { paginate } from './expand'
import { invalid, noSuch } from './http'
import { ID, type Route, route } from './routing'
import type { BillingContext } from './subscriptions'

function endpointOf(ctx: BillingContext, id: string) {
  const endpoint = ctx.bus.dispatcher.endpoint
  if (!endpoint || endpoint.id !== id) throw noSuch('webhook endpoint', id)
  return endpoint
}

export const webhookEndpointRoutes: Route[] = [
  route('GET', 'webhook_endpoints', (ctx, { params, path }) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    return paginate(endpoint ? [endpoint] : [], params, path)
  }),
  route('GET', `webhook_endpoints/${ID}`, (ctx, _call, [id]) => endpointOf(ctx, id)),
  route('POST', `webhook_endpoints/${ID}`, (ctx, { params }, [id]) => {
    const endpoint = endpointOf(ctx, id)
    const disabled = text(params.disabled)
    if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
      throw invalid(`Invalid boolean: ${disabled}`, 'disabled')
    }
    const url = text(params.url)
    if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) {
      throw invalid('Invalid URL: URL must be publicly accessible.', 'url', 'url_invalid')
    }
    if (params.description !== undefined) endpoint.description = text(params.description) ?? null
    if (url) ctx.bus.dispatcher.setUrl(url)
    if (disabled !== undefined) ctx.bus.dispatcher.setDisabled(disabled === 'true')
    return endpoint
  }),
]
