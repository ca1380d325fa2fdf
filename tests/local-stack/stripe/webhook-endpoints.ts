/**
 * `/v1/webhook_endpoints`: the emulator's one endpoint (the URL it was given), listed and
 * disabled or enabled as on Stripe (docs.stripe.com/api/webhook_endpoints/update, `disabled`).
 */
import { text } from './checkout'
import { paginate } from './expand'
import { invalid, noSuch } from './http'
import { ID, type Route, route } from './routing'

export const webhookEndpointRoutes: Route[] = [
  route('GET', 'webhook_endpoints', (ctx, { params, path }) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    return paginate(endpoint ? [endpoint] : [], params, path)
  }),
  route('POST', `webhook_endpoints/${ID}`, (ctx, { params }, [id]) => {
    const endpoint = ctx.bus.dispatcher.endpoint
    if (!endpoint || endpoint.id !== id) throw noSuch('webhook endpoint', id)
    const disabled = text(params.disabled)
    if (disabled !== undefined && disabled !== 'true' && disabled !== 'false') {
      throw invalid(`Invalid boolean: ${disabled}`, 'disabled')
    }
    if (disabled !== undefined) ctx.bus.dispatcher.setDisabled(disabled === 'true')
    return endpoint
  }),
]
