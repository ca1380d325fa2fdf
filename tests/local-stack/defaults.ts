/**
 * The stack's public keys and `npm run dev`'s URLs, valid on loopback only; app/env.server.ts
 * names the same (tests/config/local-stack-keys.test.ts).
 */
import {
  LOCAL_ANON_KEY,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  LOCAL_SERVICE_ROLE_KEY,
} from './supabase/keys'

export const LOCAL_STACK_KEYS = {
  supabaseAnonKey: LOCAL_ANON_KEY,
  supabaseServiceRoleKey: LOCAL_SERVICE_ROLE_KEY,
  supabasePublishableKey: LOCAL_PUBLISHABLE_KEY,
  supabaseSecretKey: LOCAL_SECRET_KEY,
  stripeSecretKey: 'sk_test_local_emulator',
  stripeWebhookSecret: 'whsec_local_emulator_secret',
  polarAccessToken: 'polar_oat_local_emulator',
  polarWebhookSecret: 'polar_whs_local_emulator_secret',
  /** Polar's production stand-in: its own token and secret (unknown to the sandbox's). */
  polarProductionAccessToken: 'polar_oat_local_production',
  polarProductionWebhookSecret: 'polar_whs_local_production_secret',
} as const

/** Where `npm run dev` runs the app and each emulator (see tools/dev-plan.ts). */
export const LOCAL_DEV = {
  siteUrl: 'http://localhost:5173',
  supabaseUrl: 'http://localhost:54421',
  stripeApiUrl: 'http://localhost:12111',
  polarApiUrl: 'http://localhost:12112',
} as const
