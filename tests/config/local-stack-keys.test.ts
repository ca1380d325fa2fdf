import { describe, expect, it } from 'vitest'

import { LOCAL_DEFAULTS, LOCAL_SUPABASE_NEW_KEYS } from '../../app/env.server'
import { LOCAL_DEV, LOCAL_STACK_KEYS } from '../local-stack/defaults'

// The local stack never imports the app: the app's local defaults must name its keys and URLs.
describe('the local stack and the app agree', () => {
  it("accepts the app's local keys and listens where the app's local URLs point", () => {
    expect({
      SUPABASE_ANON_KEY: LOCAL_STACK_KEYS.supabaseAnonKey,
      SUPABASE_SERVICE_ROLE_KEY: LOCAL_STACK_KEYS.supabaseServiceRoleKey,
      publishable: LOCAL_STACK_KEYS.supabasePublishableKey,
      secret: LOCAL_STACK_KEYS.supabaseSecretKey,
      STRIPE_SECRET_KEY: LOCAL_STACK_KEYS.stripeSecretKey,
      STRIPE_WEBHOOK_SECRET: LOCAL_STACK_KEYS.stripeWebhookSecret,
      POLAR_ACCESS_TOKEN: LOCAL_STACK_KEYS.polarAccessToken,
      POLAR_WEBHOOK_SECRET: LOCAL_STACK_KEYS.polarWebhookSecret,
      SITE_URL: LOCAL_DEV.siteUrl,
      SUPABASE_URL: LOCAL_DEV.supabaseUrl,
      STRIPE_API_URL: LOCAL_DEV.stripeApiUrl,
      POLAR_API_URL: LOCAL_DEV.polarApiUrl,
    }).toEqual({
      SUPABASE_ANON_KEY: LOCAL_DEFAULTS.SUPABASE_ANON_KEY,
      SUPABASE_SERVICE_ROLE_KEY: LOCAL_DEFAULTS.SUPABASE_SERVICE_ROLE_KEY,
      // The new-style keys, which the production checks refuse as well.
      publishable: LOCAL_SUPABASE_NEW_KEYS.publishable,
      secret: LOCAL_SUPABASE_NEW_KEYS.secret,
      STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
      POLAR_ACCESS_TOKEN: LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN,
      POLAR_WEBHOOK_SECRET: LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET,
      SITE_URL: LOCAL_DEFAULTS.SITE_URL,
      SUPABASE_URL: LOCAL_DEFAULTS.SUPABASE_URL,
      STRIPE_API_URL: LOCAL_DEFAULTS.STRIPE_API_URL,
      POLAR_API_URL: LOCAL_DEFAULTS.POLAR_API_URL,
    })
  })
})
