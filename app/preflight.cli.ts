/** `npm run preflight`: names what is wrong before users meet it (docs/operations.md, "Deploy"). */
import nodemailer from 'nodemailer'

import type { Preflight } from '~/billing/provider'
import { billingProviders } from '~/billing/registry.server'
import { errorText, startCommand } from '~/commands.server'

const env = startCommand()

async function read(path: string, base = `${env.SUPABASE_URL}/auth/v1`, authorization?: string) {
  const headers: HeadersInit = authorization ? { authorization } : { apikey: env.SUPABASE_ANON_KEY }
  const response = await fetch(base + path, { headers, signal: AbortSignal.timeout(10_000) })
  if (!response.ok) throw new Error(`${base + path} answered ${response.status}`)
  return response.text()
}

/** Each check's faults, `false` where one passed. */
const checks: Record<string, () => Promise<(string | false)[]>> = {
  site: async () => [
    !JSON.parse(await read('/healthz?live', env.SITE_URL)).ok && 'not ok',
    // The half-migrated project: a key in its JWKS, but the legacy JWT secret still signs.
    !!env.METRICS_TOKEN &&
      /^session_tokens_legacy_signed_total [1-9]/m.test(
        await read('/metrics', env.SITE_URL, `Bearer ${env.METRICS_TOKEN}`),
      ) &&
      'has verified sessions the legacy JWT secret signed (docs/going-live.md, "Supabase", step 3)',
  ],
  supabase: async () => {
    const settings = JSON.parse(await read('/settings'))
    const keys: { kty: string }[] = JSON.parse(await read('/.well-known/jwks.json')).keys ?? []
    return [
      !settings.external?.email && 'the email provider is off: nobody can sign up by email',
      !!settings.disable_signup && 'new sign-ups are off',
      !!settings.mailer_autoconfirm && 'email confirmation is off: addresses are never checked',
      !keys.some((key) => key.kty !== 'oct') &&
        'no asymmetric key in the JWKS (docs/going-live.md, "Supabase", step 3)',
    ]
  },
  // No server, or a login it refuses, throws.
  mail: async () => [!(await nodemailer.createTransport({ url: env.SMTP_URL }).verify())],
  ...Object.fromEntries(
    billingProviders().flatMap(({ id, preflight }) =>
      preflight ? [[id, () => preflight().then(billingFaults)]] : [],
    ),
  ),
}

/** A billing provider's: its webhook endpoint (the one at one of its `paths`), then the rest. */
function billingFaults({ paths, endpoints, events, faults = [] }: Preflight) {
  const urls = paths.map((path) => env.SITE_URL + path)
  const endpoint = endpoints.find(({ url }) => urls.includes(url))
  if (!endpoint) {
    const there = endpoints.map(({ url }) => url).join(', ') || 'none'
    return [`no webhook endpoint for ${urls[0]} (there are: ${there})`, ...faults]
  }
  const missing = events.filter((type) => !['*', type].some((e) => endpoint.events.includes(e)))
  return [...endpoint.faults, missing.length > 0 && `does not send ${missing.join(', ')}`]
    .map((fault) => fault && `webhook endpoint ${endpoint.id} ${fault}`)
    .concat(faults)
}

let faults = 0
for (const [name, check] of Object.entries(checks)) {
  const found = (await check().catch((error: unknown) => [errorText(error)])).flatMap((fault) =>
    fault ? [`FAULT ${name}: ${fault.trim()}`] : [],
  )
  faults += found.length
  console.log(found.join('\n') || `ok    ${name}`)
}
console.log(faults ? `${faults} fault(s): fix them before people meet them` : 'no faults')
process.exit(faults ? 1 : 0)
