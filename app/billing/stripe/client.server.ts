import Stripe from 'stripe'

import { getEnv } from '~/env.server'

let client: Stripe | undefined

/**
 * The Stripe client at the API version the SDK pins. STRIPE_API_URL points it at another
 * host (the local emulator); unset means api.stripe.com. Each request times out after
 * STRIPE_TIMEOUT_MS (default 20 s) and is retried twice (network errors, 409, 5xx).
 */
export function getStripe(): Stripe {
  if (client) return client
  const env = getEnv()
  const target = env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL) : undefined
  client = new Stripe(env.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: env.STRIPE_TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'subscribely' },
    ...(target
      ? {
          host: target.hostname,
          port: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
          protocol: target.protocol === 'https:' ? 'https' : 'http',
        }
      : {}),
  })
  return client
}

/** The message of a Stripe error (what the spec's 500 body carries), or a generic one. */
export function stripeErrorMessage(error: unknown) {
  if (error instanceof Stripe.errors.StripeError && error.message) return error.message
  return 'The payment provider could not complete the request'
}
