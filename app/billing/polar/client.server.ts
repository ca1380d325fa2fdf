import { createPolar } from '@polar-sh/sdk/2026-10'
import { getEnv, type Env } from '~/env.server'

export type PolarClient = ReturnType<typeof createPolar>
export type PolarServer = 'sandbox' | 'production'
/** What a client is for: checkouts (and what follows from them), portals, webhook invoices. */
export type PolarPurpose = 'checkout' | 'portal' | 'invoices'

type ServerEnv = Pick<Env, 'NODE_ENV' | 'POLAR_SANDBOX' | 'POLAR_API_URL'>

/**
 * The Polar server of each purpose, exactly as the interface contract says:
 * - checkout (and the success page, customers, subscriptions): the sandbox by default and
 *   when POLAR_SANDBOX is true, production when it is false;
 * - portal: production when NODE_ENV is production, else the sandbox;
 * - webhook invoice calls: the sandbox only when POLAR_SANDBOX is true, production when it
 *   is false or unset.
 */
export function polarServer(env: ServerEnv, purpose: PolarPurpose): PolarServer {
  if (purpose === 'portal') return env.NODE_ENV === 'production' ? 'production' : 'sandbox'
  if (purpose === 'invoices') return env.POLAR_SANDBOX === 'true' ? 'sandbox' : 'production'
  return env.POLAR_SANDBOX === 'false' ? 'production' : 'sandbox'
}

/**
 * The start-up report: which server each purpose uses, and a warning naming the setting
 * that aligns them when they differ (a checkout made in the sandbox cannot be managed in a
 * production portal, nor its invoice fetched from production).
 */
export function describePolarServers(env: ServerEnv): { info: string; warning: string | null } {
  if (env.POLAR_API_URL)
    return { info: `Polar: every call goes to POLAR_API_URL (${env.POLAR_API_URL})`, warning: null }
  const servers = {
    checkout: polarServer(env, 'checkout'),
    portal: polarServer(env, 'portal'),
    'webhook invoices': polarServer(env, 'invoices'),
  }
  const info = `Polar servers: ${Object.entries(servers)
    .map(([purpose, server]) => `${purpose} ${server}`)
    .join(', ')}`
  if (new Set(Object.values(servers)).size === 1) return { info, warning: null }
  const aligned = servers.portal === 'production' ? 'false' : 'true'
  return {
    info,
    warning: `Polar servers differ (${info.slice('Polar servers: '.length)}). Set POLAR_SANDBOX=${aligned} so that checkout, portal and webhook invoices all use ${servers.portal} (the portal follows NODE_ENV).`,
  }
}

const clients = new Map<string, PolarClient>()

/**
 * A Polar client for a purpose (see `polarServer`). POLAR_API_URL, when set (the local
 * emulator), wins over all. Requests time out after POLAR_TIMEOUT_SECONDS (default 10) and
 * are not retried (the caller answers an error).
 */
export function getPolar(purpose: PolarPurpose): PolarClient {
  const env = getEnv()
  const environment = polarServer(env, purpose)
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
