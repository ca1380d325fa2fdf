import { polarSettings } from './polar/settings'
import { stripeSettings } from './stripe/settings'

/** What each provider in the code needs configured (one line each), for app/env.server.ts. */
export const PROVIDER_SETTINGS = [stripeSettings, polarSettings] as const

/** The providers that run when BILLING_PROVIDERS is unset: one added later is off until named. */
export const DEFAULT_BILLING_PROVIDERS = 'stripe,polar'
