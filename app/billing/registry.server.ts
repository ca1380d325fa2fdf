import { getEnv } from '~/env.server'
import { jsonNoStore, methodNotAllowed } from '~/lib/server/http.server'
import { hitClientRateLimit, retryAfterText } from '~/lib/server/rate-limit.server'
import { providerOrigins } from '~/lib/server/security-headers.server'

import { polarProvider } from './polar/provider.server'
import type { BillingProvider } from './provider'
import { stripeProvider } from './stripe/provider.server'

/** Every provider in the code (one line each); BILLING_PROVIDERS says which of them run. */
const PROVIDERS = new Map(
  [stripeProvider, polarProvider].map((provider) => [provider.id, provider]),
)

/** Adds a provider beside the app's own (the tests' test-only one). @public */
export function registerBillingProvider(provider: BillingProvider) {
  PROVIDERS.set(provider.id, provider)
}

/** The providers this deployment runs, in BILLING_PROVIDERS' order (the pages' order). */
export function billingProviders(): BillingProvider[] {
  return getEnv().BILLING_PROVIDERS.map((id) => {
    const provider = PROVIDERS.get(id)
    if (!provider)
      throw new Error(
        `BILLING_PROVIDERS names "${id}", which is not one of ${[...PROVIDERS.keys()].join(', ')}`,
      )
    return provider
  })
}

/** Ends a subscription as its provider `ends` one (account deletion). */
export const endSubscription = (provider: BillingProvider, id: string) =>
  provider.ends === 'now' ? provider.cancelNow!(id) : provider.scheduleCancel(id, true)

/** Where a page's forms may end through our redirects (the CSP's form-action). */
export function providerFormTargets(): string[] {
  const env: Record<string, unknown> = getEnv()
  return billingProviders().flatMap(({ formOrigins, originSettings = [] }) => [
    ...formOrigins,
    ...originSettings.flatMap((name) => providerOrigins(env[name] as string | undefined)),
  ])
}

export function billingProvider(id: string | null | undefined) {
  return billingProviders().find((provider) => provider.id === id)
}

/** A provider's own route: it answers while that provider runs, else 404. */
export function providerRoute<Args extends unknown[]>(
  id: string,
  handler: (...args: Args) => Response | Promise<Response>,
) {
  return async (...args: Args) =>
    billingProvider(id) ? handler(...args) : jsonNoStore({ error: 'Not found' }, { status: 404 })
}

/** A webhook route's action and loader (its provider: `id`, else `/api/webhooks/<id>`'s): POST only. */
export const webhookAction =
  (id?: string) =>
  ({ request, params }: { request: Request; params?: { provider?: string } }) => {
    const provider = billingProvider(id ?? params?.provider)
    if (!provider) return jsonNoStore({ error: 'Not found' }, { status: 404 })
    return request.method === 'POST' ? provider.handleWebhook(request) : methodNotAllowed('POST')
  }

/** The loader of a provider's POST-only route: 405, or 404 while the provider does not run. */
export const postOnly = (id: string) => providerRoute(id, () => methodNotAllowed('POST'))

/** Actions that call a payment provider: one budget per account and per client (docs/security.md). */
export const PROVIDER_CALL_LIMITS = {
  account: { limit: 5, windowMs: 60_000 },
  client: { limit: 30, windowMs: 60_000 },
  shared: { limit: 300, windowMs: 60_000 },
}

/** Counts one such action of `userId`: null when allowed, else the 429's message and init. */
export async function providerCallRefusal(request: Request, userId: string, headers: Headers) {
  const limit = await hitClientRateLimit(request, 'provider', PROVIDER_CALL_LIMITS, userId)
  if (limit.allowed) return null
  headers.set('Retry-After', String(limit.retryAfterSeconds))
  const error = `Too many billing requests. Please wait ${retryAfterText(limit.retryAfterSeconds)} and try again.`
  return { error, init: { status: 429, headers } }
}
