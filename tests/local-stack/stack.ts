import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { migrate, openDatabase, PROJECT_ROOT, type Database } from './database'
import { startPolarEmulator, type PolarEmulator } from './polar'
import { startStripeEmulator, type StripeEmulator } from './stripe'
import { startSupabaseEmulator, type SupabaseEmulator } from './supabase'

export interface LocalStackOptions {
  /** The app's origin: where emails link to and where webhooks are delivered. */
  siteUrl: string
  ports?: { supabase?: number; stripe?: number; polar?: number }
  /** PostgreSQL server URL; default an embedded PGlite database. */
  databaseUrl?: string
  /** PGlite folder to persist to; default in memory. */
  dataDir?: string
  /** An already-open, migrated database to use instead. */
  database?: Database
  /** Webhook retry schedule of both payment emulators. */
  retry?: { attempts: number; baseDelayMs: number }
  /** Polar emulator: time until a requested invoice exists (its default when omitted). */
  polarInvoiceDelayMs?: number
}

export interface LocalStack {
  database: Database
  supabase: SupabaseEmulator
  stripe: StripeEmulator
  polar: PolarEmulator
  /** Environment variables that point the app at this stack. */
  env: Record<string, string>
  close(): Promise<void>
}

/** Starts the database and the Supabase, Stripe and Polar emulators on loopback. */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  let database = options.database
  if (!database) {
    if (options.dataDir) await mkdir(options.dataDir, { recursive: true })
    database = await openDatabase({ url: options.databaseUrl, dataDir: options.dataDir })
    await migrate(database)
  }
  const supabase = await startSupabaseEmulator({
    database,
    port: options.ports?.supabase,
    siteUrl: options.siteUrl,
  })
  const stripe = await startStripeEmulator({
    port: options.ports?.stripe,
    webhookUrl: `${options.siteUrl}/api/webhooks/stripe`,
    webhookSecret: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
    apiKey: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
    retry: options.retry,
  })
  const polar = await startPolarEmulator({
    port: options.ports?.polar,
    webhookUrl: `${options.siteUrl}/api/webhooks/polar`,
    webhookSecret: LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
    accessToken: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
    retry: options.retry,
    invoiceDelayMs: options.polarInvoiceDelayMs,
  })
  const env = {
    SITE_URL: options.siteUrl,
    SUPABASE_URL: supabase.url,
    SUPABASE_ANON_KEY: LOCAL_DEFAULTS.SUPABASE_ANON_KEY,
    SUPABASE_SERVICE_ROLE_KEY: LOCAL_DEFAULTS.SUPABASE_SERVICE_ROLE_KEY,
    STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
    STRIPE_WEBHOOK_SECRET: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
    STRIPE_API_URL: stripe.url,
    POLAR_ACCESS_TOKEN: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
    POLAR_WEBHOOK_SECRET: LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
    POLAR_SANDBOX: 'true',
    POLAR_API_URL: polar.url,
  }
  const db = database
  return {
    database: db,
    supabase,
    stripe,
    polar,
    env,
    async close() {
      await Promise.allSettled([supabase.close(), stripe.close(), polar.close()])
      if (!options.database) await db.close()
    },
  }
}

/** Where `npm run dev` persists the development database. */
export const DEV_DATA_DIR = path.join(PROJECT_ROOT, '.data/pglite')
