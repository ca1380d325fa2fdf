/**
 * How each release command (an app `*.cli.ts`) starts, as `npm start` does: `.env` under the
 * environment, production unless NODE_ENV says otherwise, every setting checked.
 */
import { existsSync } from 'node:fs'

import { PROVIDER_SETTINGS } from '~/billing/provider-settings'
import { type Env, getEnv } from '~/env.server'

export function startCommand(providers?: string[]): Env {
  if (existsSync('.env')) process.loadEnvFile('.env')
  process.env.NODE_ENV ||= 'production'
  try {
    const env = getEnv()
    console.log(`${env.NODE_ENV}: Supabase at ${env.SUPABASE_URL}`)
    // A provider URL unset or empty is the real service, except outside production (the stack).
    for (const { id, apiUrl } of PROVIDER_SETTINGS)
      if (env.BILLING_PROVIDERS.includes(id) && (providers ?? [id]).includes(id))
        console.log(`${id}: ${(env as Record<string, unknown>)[apiUrl.name] ?? apiUrl.realService}`)
    return env
  } catch (error) {
    console.error(errorText(error))
    process.exit(1)
  }
}

/** What went wrong, in words: an error's message (and its cause's), or the answer's text. */
export function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String((error as { data?: unknown } | null)?.data ?? error)
  return error.cause instanceof Error ? `${error.message}: ${error.cause.message}` : error.message
}
