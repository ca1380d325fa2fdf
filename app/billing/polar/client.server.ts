import { createPolar } from '@polar-sh/sdk/2026-10'
import { getEnv } from '~/env.server'

export type PolarClient = ReturnType<typeof createPolar>
const clients = new Map<string, PolarClient>()

/**
 * A Polar client. The server follows the spec: checkouts and invoice retrieval use the
 * sandbox unless POLAR_SANDBOX is "false" (purpose "api"); the customer portal uses
 * production when NODE_ENV is production, else the sandbox (purpose "portal").
 * POLAR_API_URL, when set (the local emulator), wins over both. Requests time out after
 * POLAR_TIMEOUT_SECONDS (default 10) and are not retried (the caller answers an error).
 */
export function getPolar(purpose: 'api' | 'portal' = 'api'): PolarClient {
  const env = getEnv()
  const environment =
    purpose === 'portal'
      ? env.NODE_ENV === 'production'
        ? 'production'
        : 'sandbox'
      : env.POLAR_SANDBOX
        ? 'sandbox'
        : 'production'
  const key = `${environment}:${env.POLAR_API_URL ?? ''}`
  let client = clients.get(key)
  if (!client) {
    client = createPolar({
      accessToken: env.POLAR_ACCESS_TOKEN,
      environment,
      ...(env.POLAR_API_URL ? { baseUrl: env.POLAR_API_URL } : {}),
      timeout: env.POLAR_TIMEOUT_SECONDS,
    })
    clients.set(key, client)
  }
  return client
}

/** The HTTP status of a Polar SDK error (client errors carry statusCode), if any. */
export function polarStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown })?.statusCode
  return typeof status === 'number' ? status : undefined
}
