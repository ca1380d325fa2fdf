/**
 * `/v1/billing_portal/configurations`: the account's portal configurations, listed and
 * retrieved as Stripe's API gives them. Plan changes (`features.subscription_update`) offer
 * every active recurring price unless the emulator was told a configuration has them off or
 * offers fewer. Which ones (`features.subscription_update.products`) is an includable field:
 * absent unless `expand[]` names it, as on Stripe.
 */
import { text } from './checkout'
import { expandPaths, paginate } from './expand'
import { noSuch, type Params } from './http'
import { ID, type Route, route } from './routing'
import { DEFAULT_PORTAL_CONFIGURATION } from './store'
import type { BillingContext } from './subscriptions'

function configurationObject(ctx: BillingContext, id: string, params: Params) {
  const included = expandPaths(params).some((path) =>
    /^(data\.)?features\.subscription_update\.products$/.test(path),
  )
  if (!ctx.store.account.portalConfigurations.has(id)) throw noSuch('configuration', id)
  const enabled = !ctx.store.account.portalPlanChangesOff.has(id)
  const byProduct = new Map<string, string[]>()
  const offered = ctx.store.account.portalPrices.get(id)
  for (const price of ctx.store.prices.values())
    if (price.active && price.recurring && (offered ?? [price.id]).includes(price.id))
      byProduct.set(price.product, [...(byProduct.get(price.product) ?? []), price.id])
  return {
    id,
    object: 'billing_portal.configuration',
    active: true,
    application: null,
    business_profile: { headline: null, privacy_policy_url: null, terms_of_service_url: null },
    created: 1_735_689_600,
    default_return_url: null,
    features: {
      customer_update: { allowed_updates: [], enabled: false },
      invoice_history: { enabled: true },
      payment_method_update: { enabled: true },
      subscription_cancel: {
        cancellation_reason: { enabled: true, options: [] },
        enabled: true,
        mode: 'at_period_end',
        proration_behavior: 'none',
      },
      subscription_update: {
        default_allowed_updates: enabled ? ['price'] : [],
        enabled,
        ...(included && {
          products: enabled ? [...byProduct].map(([product, prices]) => ({ product, prices })) : [],
        }),
        proration_behavior: 'create_prorations',
        schedule_at_period_end: { conditions: [] },
        trial_update_behavior: 'end_trial',
      },
    },
    is_default: id === DEFAULT_PORTAL_CONFIGURATION,
    livemode: false,
    login_page: { enabled: false, url: null },
    metadata: {},
    updated: 1_735_689_600,
  }
}

export const portalConfigurationRoutes: Route[] = [
  route('GET', 'billing_portal/configurations', (ctx, { params, path }) => {
    const isDefault = text(params.is_default)
    const all = [...ctx.store.account.portalConfigurations].map((id) =>
      configurationObject(ctx, id, params),
    )
    const listed = all.filter(
      (configuration) => isDefault === undefined || String(configuration.is_default) === isDefault,
    )
    return paginate(listed, params, path)
  }),
  route('GET', `billing_portal/configurations/${ID}`, (ctx, { params }, [id]) =>
    configurationObject(ctx, id, params),
  ),
]
