import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import type { Catalog } from './catalog'
import { migrate, openDatabase, PROJECT_ROOT, type Database } from './database'
import { LOCAL_STACK_KEYS } from './defaults'
import { freshStackKeys, type StackKeys } from './fresh-keys'
import { startPolarEmulator, type PolarEmulator } from './polar'
import { startStripeEmulator, type StripeEmulator } from './stripe'
import { startSupabaseEmulator, type SupabaseEmulator } from './supabase'
import { startSmtpInbox, type SmtpInbox } from './supabase/smtp'

export interface LocalStackOptions {
  /** The app's origin: where emails link to and where webhooks are delivered. */
  siteUrl: string
  /** The plans the Stripe and Polar emulators are seeded with (the product's: LOCAL_CATALOG). */
  catalog: Catalog
  ports?: { supabase?: number; stripe?: number; polar?: number; smtp?: number }
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
  /**
   * `published` (default): the keys of tests/local-stack/defaults.ts, which the app's local
   * defaults name. `fresh`: keys made for this run (fresh-keys.ts), the only ones the
   * emulators then accept; what a production build may be configured with (the deploy
   * rehearsal).
   */
  keys?: 'published' | 'fresh'
}

export interface LocalStack {
  database: Database
  supabase: SupabaseEmulator
  stripe: StripeEmulator
  polar: PolarEmulator
  /** The SMTP listener whose mails land in the Supabase emulator's inbox (SMTP_URL). */
  smtp: SmtpInbox
  /** Environment variables that point the app at this stack. */
  env: Record<string, string>
  close(): Promise<void>
}

/**
 * Starts the database, the Supabase, Stripe and Polar emulators and the SMTP inbox on
 * loopback.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<LocalStack> {
  let database = options.database
  if (!database) {
    if (options.dataDir) await mkdir(options.dataDir, { recursive: true })
    database = await openDatabase({ url: options.databaseUrl, dataDir: options.dataDir })
    await migrate(database)
  }
  const keys: StackKeys =
    options.keys === 'fresh' ? await freshStackKeys() : { ...LOCAL_STACK_KEYS }
  const supabase = await startSupabaseEmulator({
    database,
    port: options.ports?.supabase,
    siteUrl: options.siteUrl,
    ...(options.keys === 'fresh'
      ? { apiKeys: { anon: keys.supabaseAnonKey, serviceRole: keys.supabaseServiceRoleKey } }
      : {}),
  })
  const stripe = await startStripeEmulator({
    port: options.ports?.stripe,
    webhookUrl: `${options.siteUrl}/api/webhooks/stripe`,
    catalog: options.catalog,
    webhookSecret: keys.stripeWebhookSecret,
    apiKey: keys.stripeSecretKey,
    retry: options.retry,
  })
  const polar = await startPolarEmulator({
    port: options.ports?.polar,
    webhookUrl: `${options.siteUrl}/api/webhooks/polar`,
    catalog: options.catalog,
    webhookSecret: keys.polarWebhookSecret,
    accessToken: keys.polarAccessToken,
    retry: options.retry,
    invoiceDelayMs: options.polarInvoiceDelayMs,
  })
  const smtp = await startSmtpInbox({ database, port: options.ports?.smtp })
  const env = {
    SITE_URL: options.siteUrl,
    SUPABASE_URL: supabase.url,
    SUPABASE_ANON_KEY: keys.supabaseAnonKey,
    SUPABASE_SERVICE_ROLE_KEY: keys.supabaseServiceRoleKey,
    STRIPE_SECRET_KEY: keys.stripeSecretKey,
    STRIPE_WEBHOOK_SECRET: keys.stripeWebhookSecret,
    STRIPE_API_URL: stripe.url,
    POLAR_ACCESS_TOKEN: keys.polarAccessToken,
    POLAR_WEBHOOK_SECRET: keys.polarWebhookSecret,
    POLAR_SANDBOX: 'true',
    POLAR_API_URL: polar.url,
    SMTP_URL: smtp.url,
  }
  const db = database
  return {
    database: db,
    supabase,
    stripe,
    polar,
    smtp,
    env,
    async close() {
      await Promise.allSettled([supabase.close(), stripe.close(), polar.close(), smtp.close()])
      if (!options.database) await db.close()
    },
  }
}

/** Where `npm run dev` persists the development database. */
export const DEV_DATA_DIR = path.join(PROJECT_ROOT, '.data/pglite')
