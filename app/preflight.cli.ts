/**
 * `npm run preflight`: reads what this deployment's own keys can read and names what is wrong
 * before users meet it; exits 1 on any fault (docs/operations.md, "Deploy").
 */
import { existsSync } from 'node:fs'

import nodemailer from 'nodemailer'

import { billingProviders } from '~/billing/registry.server'
import { getEnv } from '~/env.server'

if (existsSync('.env')) process.loadEnvFile('.env')

async function read<T>(url: string, apikey?: string): Promise<T> {
  const response = await fetch(url, {
    headers: apikey ? { apikey } : {},
    signal: AbortSignal.timeout(10_000),
  })
  if (!response.ok) throw new Error(`${url} answered ${response.status}`)
  return response.json() as Promise<T>
}

type Faults = (string | false)[]
type AuthSettings = {
  external?: { email?: boolean }
  disable_signup?: boolean
  mailer_autoconfirm?: boolean
}

function checks(): Record<string, () => Promise<Faults>> {
  const env = getEnv()
  const auth = (path: string) => read(`${env.SUPABASE_URL}/auth/v1${path}`, env.SUPABASE_ANON_KEY)
  return {
    site: async () => [
      !(await read<{ ok?: boolean }>(`${env.SITE_URL}/healthz?live`)).ok &&
        `${env.SITE_URL}/healthz?live does not say ok`,
    ],
    'supabase auth': async () => {
      const settings = (await auth('/settings')) as AuthSettings
      return [
        !settings.external?.email &&
          'the email provider is off: nobody can sign up or sign in by email',
        settings.disable_signup === true && 'new sign-ups are off',
        settings.mailer_autoconfirm === true &&
          'email confirmation is off: addresses are never confirmed',
      ]
    },
    'supabase signing keys': async () => {
      const { keys } = (await auth('/.well-known/jwks.json')) as { keys?: { kty: string }[] }
      return [
        !keys?.some((key) => key.kty !== 'oct') &&
          'no asymmetric key in the JWKS: sessions are signed with the legacy JWT secret, so every signed-in page asks Supabase Auth (docs/going-live.md, "Supabase", step 3)',
      ]
    },
    mail: async () => {
      const smtp = nodemailer.createTransport({
        url: env.SMTP_URL,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
      })
      await smtp.verify().finally(() => smtp.close())
      return []
    },
    ...Object.fromEntries(
      billingProviders().map((provider) => [provider.id, () => provider.preflight()]),
    ),
  }
}

let faults = 0
try {
  for (const [name, check] of Object.entries(checks())) {
    const found = (
      await check().catch((error: Error) => [
        `${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ''}`,
      ])
    ).filter(Boolean)
    faults += found.length
    console.log(
      found.length ? found.map((fault) => `FAULT ${name}: ${fault}`).join('\n') : `ok    ${name}`,
    )
  }
} catch (error) {
  console.error((error as Error).message)
  process.exit(1)
}
console.log(faults ? `${faults} fault(s): fix them before people meet them` : 'no faults')
process.exit(faults ? 1 : 0)
