import Stripe from 'stripe'

import { getEnv } from '~/env.server'
import { requestContext } from '~/lib/server/request-context.server'

let client: Stripe | undefined

/** At the API version the SDK pins; retried twice (network errors, 409, 5xx). */
export function getStripe(): Stripe {
  if (client) return client
  const env = getEnv()
  const target = env.STRIPE_API_URL ? new URL(env.STRIPE_API_URL) : undefined
  // Each call carries the request's id, as X-Request-Id and in the idempotency key the SDK makes
  // for a POST (`<request id>-<uuid>`, in Stripe's request log); a key chosen in code stays.
  const httpClient = Stripe.createNodeHttpClient()
  const send = httpClient.makeRequest.bind(httpClient)
  httpClient.makeRequest = (host, port, path, method, headers, ...rest) => {
    const id = requestContext.getStore()?.requestId
    const key = String(headers['Idempotency-Key'] ?? '').replace(/^stripe-node-retry-/, `${id}-`)
    const ids = id ? { 'X-Request-Id': id, ...(key ? { 'Idempotency-Key': key } : {}) } : {}
    return send(host, port, path, method, { ...headers, ...ids }, ...rest)
  }
  client = new Stripe(env.STRIPE_SECRET_KEY, {
    maxNetworkRetries: 2,
    timeout: env.STRIPE_TIMEOUT_MS,
    telemetry: false,
    appInfo: { name: 'subscribely' },
    httpClient,
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

/** What the spec's 500 body carries. */
export function stripeErrorMessage(error: unknown) {
  if (error instanceof Stripe.errors.StripeError && error.message) return error.message
  return 'The payment provider could not complete the request'
}
