import { polarSettings } from './polar/settings'
import { stripeSettings } from './stripe/settings'

/**
 * What each provider in the code needs configured (one line each), for app/env.server.ts;
 * apart from registry.server.ts, which holds what each provider does, because the adapters
 * read the configuration this checks.
 */
export const PROVIDER_SETTINGS = [stripeSettings, polarSettings] as const
