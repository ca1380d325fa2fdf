import { runningProviders } from '../app/env.server'

/**
 * What `npm run dev` starts: the local stack, unless `.env` points Supabase and the running
 * providers elsewhere (or LOCAL_STACK says); on ports never the Supabase CLI's (54321-54329).
 */
interface DevPlan {
  localStack: boolean
  ports: { app: number; supabase: number; stripe: number; polar: number; smtp: number }
  siteUrl: string
  reason: string
}

export const DEFAULT_DEV_PORTS = {
  app: 5173,
  supabase: 54421,
  stripe: 12111,
  polar: 12112,
  smtp: 54425,
} as const

function port(value: string | undefined, fallback: number, name: string) {
  if (value === undefined || value === '') return fallback
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < 1 || parsed > 65535)
    throw new Error(`${name} must be a port number (1-65535), not "${value}"`)
  return parsed
}

export function planDev(
  env: Record<string, string | undefined>,
  localDefaults: Record<string, string>,
): DevPlan {
  const running = runningProviders(env)
  const ports = {
    app: port(env.LOCAL_APP_PORT, DEFAULT_DEV_PORTS.app, 'LOCAL_APP_PORT'),
    supabase: port(env.LOCAL_SUPABASE_PORT, DEFAULT_DEV_PORTS.supabase, 'LOCAL_SUPABASE_PORT'),
    stripe: port(env.LOCAL_STRIPE_PORT, DEFAULT_DEV_PORTS.stripe, 'LOCAL_STRIPE_PORT'),
    polar: port(env.LOCAL_POLAR_PORT, DEFAULT_DEV_PORTS.polar, 'LOCAL_POLAR_PORT'),
    smtp: port(env.LOCAL_SMTP_PORT, DEFAULT_DEV_PORTS.smtp, 'LOCAL_SMTP_PORT'),
  }
  const defaultSite = `http://localhost:${DEFAULT_DEV_PORTS.app}`
  const siteUrl =
    env.SITE_URL && env.SITE_URL !== defaultSite ? env.SITE_URL : `http://localhost:${ports.app}`
  const plan = (localStack: boolean, reason: string) => ({ localStack, ports, siteUrl, reason })
  const switchValue = env.LOCAL_STACK?.trim().toLowerCase()
  if (switchValue === 'off') return plan(false, 'LOCAL_STACK=off')
  if (switchValue === 'on') return plan(true, 'LOCAL_STACK=on')
  if (switchValue) throw new Error(`LOCAL_STACK must be "on" or "off", not "${env.LOCAL_STACK}"`)
  const local = ['SUPABASE_URL', ...running.map(({ apiUrl }) => apiUrl.name)].filter(
    (name) => env[name] === undefined || env[name] === localDefaults[name],
  )
  if (local.length === 0) return plan(false, '.env points every service elsewhere')
  return plan(true, `local ${local.join(', ')}`)
}
