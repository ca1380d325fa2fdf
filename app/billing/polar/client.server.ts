import { createPolar } from '@polar-sh/sdk/2026-10'

import { type Env, getEnv } from '~/env.server'

export type PolarClient = ReturnType<typeof createPolar>
export type PolarPurpose = 'checkout' | 'portal' | 'invoices'

type ServerEnv = Pick<Env, 'NODE_ENV' | 'POLAR_SANDBOX' | 'POLAR_API_URL'> &
  Partial<Pick<Env, 'DEPLOYMENT_ENVIRONMENT'>>

// A staging deployment runs the production build (NODE_ENV=production) but is not production.
function runtimeEnvironment(env: ServerEnv) {
  return env.DEPLOYMENT_ENVIRONMENT ?? env.NODE_ENV
}

/** The Polar server of each purpose, exactly as the interface contract says. */
export function polarServer(env: ServerEnv, purpose: PolarPurpose) {
  if (purpose === 'portal')
    return runtimeEnvironment(env) === 'production' ? 'production' : 'sandbox'
  if (purpose === 'invoices') return env.POLAR_SANDBOX === 'true' ? 'sandbox' : 'production'
  return env.POLAR_SANDBOX === 'false' ? 'production' : 'sandbox'
}

/** Throws when the purposes' servers differ: a sandbox checkout is unknown to production's. */
export function describePolarServers(env: ServerEnv): { info: string } {
  if (env.POLAR_API_URL)
    return { info: `Polar: every call goes to POLAR_API_URL (${env.POLAR_API_URL})` }
  const servers = {
    checkout: polarServer(env, 'checkout'),
    portal: polarServer(env, 'portal'),
    'webhook invoices': polarServer(env, 'invoices'),
  }
  const summary = Object.entries(servers)
    .map(([purpose, server]) => `${purpose} ${server}`)
    .join(', ')
  if (new Set(Object.values(servers)).size === 1) return { info: `Polar servers: ${summary}` }
  const runtime = env.DEPLOYMENT_ENVIRONMENT
    ? `DEPLOYMENT_ENVIRONMENT=${env.DEPLOYMENT_ENVIRONMENT}`
    : `NODE_ENV=${env.NODE_ENV}, DEPLOYMENT_ENVIRONMENT unset`
  const sandbox = env.POLAR_SANDBOX === undefined ? 'unset' : env.POLAR_SANDBOX
  const fix =
    servers.portal === 'production'
      ? 'For production set POLAR_SANDBOX=false. For a staging deployment on the Polar sandbox set POLAR_SANDBOX=true and DEPLOYMENT_ENVIRONMENT=staging.'
      : runtimeEnvironment(env) === 'development' || runtimeEnvironment(env) === 'test'
        ? 'Set POLAR_SANDBOX=true (outside production the portal is always the sandbox).'
        : 'For a staging deployment on the Polar sandbox set POLAR_SANDBOX=true. For production set POLAR_SANDBOX=false and DEPLOYMENT_ENVIRONMENT=production (or leave it unset).'
  throw new Error(
    `Refusing to start: checkout, portal and webhook invoices would reach different Polar servers (${summary}; POLAR_SANDBOX ${sandbox}, ${runtime}). ${fix} See docs/going-live.md, "Polar".`,
  )
}

const clients = new Map<string, PolarClient>()

/** Not retried: the caller answers an error. */
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
