import { mkdir } from 'node:fs/promises'
import path from 'node:path'

import type { Catalog } from './catalog'
import { type Database, migrate, openDatabase, PROJECT_ROOT } from './database'
import { LOCAL_STACK_KEYS } from './defaults'
import { freshStackKeys, type StackKeys } from './fresh-keys'
import { type PolarEmulator, startPolarEmulator } from './polar'
import { type DeliveryOptions, startStripeEmulator, type StripeEmulator } from './stripe'
import {
  startSupabaseEmulator,
  type SupabaseEmulator,
  type SupabaseEmulatorOptions,
} from './supabase'
import { type SmtpInbox, startSmtpInbox } from './supabase/smtp'

export interface LocalStackOptions {
  /** The app's origin: where emails link to and where webhooks are delivered. */
  siteUrl: string
  catalog: Catalog
  providers?: readonly string[]
  ports?: {
    supabase?: number
    stripe?: number
    polar?: number
    smtp?: number
    polarProduction?: number
  }
  /** PostgreSQL server URL; default an embedded PGlite database (in `dataDir`, or in memory). */
  databaseUrl?: string
  dataDir?: string
  database?: Database
  retry?: { attempts: number; baseDelayMs: number }
  polarInvoiceDelayMs?: number
  stripeDelivery?: DeliveryOptions
  /** The Supabase keys `env` names: legacy JWTs (default) or publishable/secret; both work. */
  supabaseKeys?: 'legacy' | 'new'
  /** Auth and PostgREST project settings (supabase/README.md, "Rate limits"). */
  supabaseAuth?: Pick<
    SupabaseEmulatorOptions,
    | 'rateLimits'
    | 'mailMaxFrequencySeconds'
    | 'sbForwardedFor'
    | 'jwtSigning'
    | 'restPool'
    | 'disableSignup'
  >
  /** `published` (default, defaults.ts) or `fresh`: keys made for this run (the deploy rehearsal). */
  keys?: 'published' | 'fresh'
}

/** For suites driving many journeys from one address: no per-IP or hourly mail limits. */
export const SUITE_AUTH_LIMITS = {
  rateLimits: { tokenRefresh: 1_000_000, verify: 1_000_000, otp: 1_000_000, emailSent: 1_000_000 },
} satisfies LocalStackOptions['supabaseAuth']

export interface LocalStack {
  database: Database
  supabase: SupabaseEmulator
  stripe: StripeEmulator
  polar: PolarEmulator
  /** Polar's production server: its own token, secret and data, as for real. */
  polarProduction: PolarEmulator
  smtp: SmtpInbox
  env: Record<string, string>
  close(): Promise<void>
}

type PaymentStandIns = 'stripe' | 'polar' | 'polarProduction'
export type PartialLocalStack = Omit<LocalStack, PaymentStandIns> &
  Partial<Pick<LocalStack, PaymentStandIns>>

export async function startLocalStack(
  options: LocalStackOptions & { providers?: undefined },
): Promise<LocalStack>
export async function startLocalStack(options: LocalStackOptions): Promise<PartialLocalStack>
export async function startLocalStack(options: LocalStackOptions): Promise<PartialLocalStack> {
  const runs = (id: string) => !options.providers || options.providers.includes(id)
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
    ...options.supabaseAuth,
    apiKeys: {
      anon: keys.supabaseAnonKey,
      serviceRole: keys.supabaseServiceRoleKey,
      publishable: keys.supabasePublishableKey,
      secret: keys.supabaseSecretKey,
    },
  })
  const stripe = runs('stripe')
    ? await startStripeEmulator({
        port: options.ports?.stripe,
        webhookUrl: `${options.siteUrl}/api/webhooks/stripe`,
        businessUrl: options.siteUrl,
        catalog: options.catalog,
        webhookSecret: keys.stripeWebhookSecret,
        apiKey: keys.stripeSecretKey,
        retry: options.retry,
        delivery: options.stripeDelivery,
      })
    : undefined
  const startPolar = (environment: 'sandbox' | 'production', port?: number) =>
    startPolarEmulator({
      environment,
      port,
      webhookUrl: `${options.siteUrl}/api/webhooks/polar`,
      catalog: options.catalog,
      ...(environment === 'sandbox'
        ? { webhookSecret: keys.polarWebhookSecret, accessToken: keys.polarAccessToken }
        : {
            webhookSecret: LOCAL_STACK_KEYS.polarProductionWebhookSecret,
            accessToken: LOCAL_STACK_KEYS.polarProductionAccessToken,
          }),
      retry: options.retry,
      invoiceDelayMs: options.polarInvoiceDelayMs,
    })
  const polar = runs('polar') ? await startPolar('sandbox', options.ports?.polar) : undefined
  const polarProduction = runs('polar')
    ? await startPolar('production', options.ports?.polarProduction)
    : undefined
  const smtp = await startSmtpInbox({ database, port: options.ports?.smtp })
  const env = {
    SITE_URL: options.siteUrl,
    SUPABASE_URL: supabase.url,
    ...(options.supabaseKeys === 'new'
      ? {
          SUPABASE_ANON_KEY: keys.supabasePublishableKey,
          SUPABASE_SERVICE_ROLE_KEY: keys.supabaseSecretKey,
        }
      : {
          SUPABASE_ANON_KEY: keys.supabaseAnonKey,
          SUPABASE_SERVICE_ROLE_KEY: keys.supabaseServiceRoleKey,
        }),
    ...(stripe && {
      STRIPE_SECRET_KEY: keys.stripeSecretKey,
      STRIPE_WEBHOOK_SECRET: keys.stripeWebhookSecret,
      STRIPE_API_URL: stripe.url,
    }),
    ...(polar && {
      POLAR_ACCESS_TOKEN: keys.polarAccessToken,
      POLAR_WEBHOOK_SECRET: keys.polarWebhookSecret,
      POLAR_SANDBOX: 'true',
      POLAR_API_URL: polar.url,
    }),
    SMTP_URL: smtp.url,
  }
  const db = database
  return {
    database: db,
    supabase,
    stripe,
    polar,
    polarProduction,
    smtp,
    env,
    async close() {
      await Promise.allSettled([
        supabase.close(),
        stripe?.close(),
        polar?.close(),
        polarProduction?.close(),
        smtp.close(),
      ])
      if (!options.database) await db.close()
    },
  }
}

export const DEV_DATA_DIR = path.join(PROJECT_ROOT, '.data/pglite')
