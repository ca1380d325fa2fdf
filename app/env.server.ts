import { z } from 'zod'

import { PLAN_DEFINITIONS, planIdSettings, type PlanSettingName } from './billing/plans'
import { DEFAULT_BILLING_PROVIDERS, PROVIDER_SETTINGS } from './billing/provider-settings'
import {
  httpUrl,
  optionalNumber,
  optionalString,
  optionalTrueOrFalse,
} from './lib/server/setting-types'

const PLAN_ID_DEFAULTS = planIdSettings(PLAN_DEFINITIONS)

type Providers = (typeof PROVIDER_SETTINGS)[number]
type Merged<U> = (U extends unknown ? (value: U) => void : never) extends (value: infer I) => void
  ? I
  : never
/** Every provider's variables, as one object type (each is set only when the provider runs). */
type ProviderShape = Merged<Providers['schema']>
const PROVIDER_DEFAULTS = Object.assign(
  {},
  ...PROVIDER_SETTINGS.map((provider) => provider.localDefaults),
) as Merged<Providers['localDefaults']>

/** The local stack's keys and plan ids: public, which is why production refuses them. */
export const LOCAL_DEFAULTS = {
  SITE_URL: 'http://localhost:5173',
  SUPABASE_URL: 'http://localhost:54421',
  // Supabase CLI demo keys (HS256, secret "super-secret-jwt-token-with-at-least-32-characters-long").
  SUPABASE_ANON_KEY:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6ImFub24iLCJleHAiOjE5ODM4MTI5OTZ9.CRXP1A7WOeoJeXxjNni43kdQwgnWNReilDMblYTn_I0',
  SUPABASE_SERVICE_ROLE_KEY:
    'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzdXBhYmFzZS1kZW1vIiwicm9sZSI6InNlcnZpY2Vfcm9sZSIsImV4cCI6MTk4MzgxMjk5Nn0.EGIM96RAZx35lJzdJsyH-qQwv8Hdp7fsn3W0YpN81IU',
  // The local stack's SMTP listener: mails land in its inbox (/_inbox) beside the auth mails.
  SMTP_URL: 'smtp://127.0.0.1:54425',
  MAIL_FROM: 'Subscribely <no-reply@localhost>',
  CONTACT_TO: 'Subscribely team <team@localhost>',
  ...PROVIDER_DEFAULTS,
  ...PLAN_ID_DEFAULTS,
} as const

/** The local stack's new-style Supabase keys (the CLI's fixed values): refused in production too. */
export const LOCAL_SUPABASE_NEW_KEYS = {
  publishable: 'sb_publishable_ACJWlzQHlZjBrEguHvfOxg_3BJgxAaH',
  secret: 'sb_secret_N7UND0UgjKTVK-Uodkm0Hg_xSvEMPvz',
} as const

const origin = z.string().refine((value) => {
  const url = URL.parse(value)
  return !!url && (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === value
}, 'must be an origin such as https://example.com (scheme and host, optional port, no path and no trailing slash)')

const smtpUrl = z.string().refine((value) => {
  const url = URL.parse(value)
  return !!url && (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname !== ''
}, 'must be an smtp:// or smtps:// URL, e.g. smtps://user:password@smtp.example.com:465')

// "Name <address@domain>" or a bare address; no line breaks (it becomes a header).
const mailFrom = z
  .string()
  .trim()
  .regex(
    /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
    'must be an address such as "Example <no-reply@example.com>" or no-reply@example.com',
  )

/** The `role` claim of a legacy (JWT) Supabase key, when it can be read; no check of its signature. */
function legacyKeyRole(value: string): unknown {
  try {
    const claims = JSON.parse(Buffer.from(value.split('.')[1] ?? '', 'base64url').toString('utf8'))
    return (claims as { role?: unknown } | null)?.role
  } catch {
    return undefined
  }
}

// The project's public key (sb_publishable_… or the legacy anon JWT), never a secret one.
const supabasePublicKey = z
  .string()
  .min(20, 'must be the project publishable key (sb_publishable_…) or legacy anon key')
  .refine(
    (value) => !value.startsWith('sb_secret_') && legacyKeyRole(value) !== 'service_role',
    'is a secret key: set the publishable key (sb_publishable_…) or legacy anon key here, and the secret key in SUPABASE_SERVICE_ROLE_KEY',
  )

// The project's secret key: a secret key (sb_secret_…) or the legacy service_role JWT.
const supabaseSecretKey = z
  .string()
  .min(20, 'must be the project secret key (sb_secret_…) or legacy service_role key')
  .refine(
    (value) => !value.startsWith('sb_publishable_') && legacyKeyRole(value) !== 'anon',
    'is a public key: set a secret key (sb_secret_…) or the legacy service_role key here',
  )

/** The levels LOG_LEVEL may name (`silent` writes nothing: the unit tests' default). */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const

// Each setting, its default and its production rule are explained in .env.example.
const baseSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  SITE_URL: origin,
  SUPABASE_URL: httpUrl,
  // Either kind of key (app/lib/database/supabase-keys.server.ts says which goes where).
  SUPABASE_ANON_KEY: supabasePublicKey,
  SUPABASE_SERVICE_ROLE_KEY: supabaseSecretKey,
  COOKIE_SECRET: optionalString.pipe(
    z.string().min(32, 'must be 32 characters or more').optional(),
  ),
  BILLING_PROVIDERS: optionalString
    .transform((value) => (value ?? DEFAULT_BILLING_PROVIDERS).split(',').map((id) => id.trim()))
    // Which ids the code has is the billing registry's to say, at start-up.
    .refine(
      (ids) => ids.every((id) => /^[a-z][a-z0-9]*$/.test(id)),
      `must list provider ids (${PROVIDER_SETTINGS.map(({ id }) => id).join(', ')}), separated by commas`,
    )
    .refine((ids) => new Set(ids).size === ids.length, 'must name each provider once'),
  DEPLOYMENT_ENVIRONMENT: optionalString.pipe(
    z.enum(['production', 'staging'], 'must be production or staging, or left unset').optional(),
  ),
  SMTP_URL: smtpUrl,
  MAIL_FROM: mailFrom,
  CONTACT_TO: mailFrom,
  MAIL_POLL_INTERVAL_MS: optionalNumber(100, 600_000, 5_000),
  MAIL_RETRY_BASE_MS: optionalNumber(100, 3_600_000, 30_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  TRUSTED_PROXY_COUNT: optionalString
    .pipe(z.string().regex(/^\d+$/, 'must be a whole number (0 or more)').optional())
    .transform((value) => (value === undefined ? 0 : Number(value))),
  RATE_LIMIT_STORE: optionalString.pipe(
    z.enum(['memory', 'postgres'], 'must be memory or postgres').optional(),
  ),
  SINGLE_INSTANCE: optionalTrueOrFalse.transform((value) => value === 'true'),
  METRICS_TOKEN: optionalString.pipe(
    z.string().min(16, 'must be at least 16 characters').optional(),
  ),
})

/** The running providers' settings (from `source`, unchecked: BILLING_PROVIDERS is checked with the rest). */
export function runningProviders(source: Record<string, string | undefined>) {
  const ids = baseSchema.shape.BILLING_PROVIDERS.safeParse(source.BILLING_PROVIDERS)
  return PROVIDER_SETTINGS.filter(({ id }) => !ids.success || ids.data.includes(id))
}

/** The base schema, each provider's variables and each plan's id there (required in production). */
function schemaFor(providers: readonly Providers[]) {
  return baseSchema.extend(
    Object.fromEntries(
      providers.flatMap(({ schema, planIds }) => [
        ...Object.entries(schema),
        ...Object.keys(PLAN_ID_DEFAULTS)
          .filter((name) => name.startsWith(planIds.prefix))
          .map((name) => [name, (planIds.catalog.shape as Record<string, z.ZodType>)[planIds.id]]),
      ]),
    ),
  )
}

export type Env = z.infer<typeof baseSchema> & {
  [Name in keyof ProviderShape]: ProviderShape[Name] extends z.ZodType
    ? z.output<ProviderShape[Name]>
    : never
} & Record<PlanSettingName, string>

/** What only the local stack may use, refused in production (`loopbackHosts`: but its URLs). */
function localOnlyProblems(env: Env, loopbackHosts: boolean): string[] {
  const problems: string[] = []
  const providers = runningProviders(env as unknown as Record<string, string>)
  const values = env as unknown as Record<string, string | undefined>
  const defaults: Record<string, string> = LOCAL_DEFAULTS
  const keyNames = [
    'SUPABASE_ANON_KEY',
    'SUPABASE_SERVICE_ROLE_KEY',
    ...providers.flatMap((provider) => provider.localKeys),
  ]
  const newKeys: (string | undefined)[] = Object.values(LOCAL_SUPABASE_NEW_KEYS)
  // A webhook secret's `_PREVIOUS` (a rotation's old one) too.
  for (const name of keyNames.flatMap((key) => [key, `${key}_PREVIOUS`])) {
    const published = defaults[name.replace(/_PREVIOUS$/, '')]
    if (values[name] === published || newKeys.includes(values[name]))
      problems.push(`${name} is the local emulator key`)
  }
  for (const [name, localId] of Object.entries(PLAN_ID_DEFAULTS))
    if (values[name] === localId)
      problems.push(`${name} is the local emulator's id; set your account's own`)
  if (env.RATE_LIMIT_STORE === 'memory' && !env.SINGLE_INSTANCE)
    problems.push('RATE_LIMIT_STORE=memory counts per instance: unset it, or SINGLE_INSTANCE=true')
  if (env.SMTP_URL === LOCAL_DEFAULTS.SMTP_URL)
    problems.push(`SMTP_URL is the local stack's inbox (${env.SMTP_URL})`)
  const urlNames = ['SUPABASE_URL', ...providers.map((provider) => provider.apiUrl.name)]
  for (const name of loopbackHosts ? [] : urlNames) {
    const value = values[name]
    if (value && isLoopback(value)) problems.push(`${name} points at the local stack (${value})`)
  }
  return problems
}

/** Exactly this machine: `localhost`, `[::1]` or 127.x.y.z (not a name that starts with 127.). */
function isLoopback(value: string) {
  const host = new URL(value).hostname
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host)
}

const bulleted = (lines: string[]) => lines.map((line) => `  - ${line}`).join('\n')

/**
 * Whether `name` lets production run on a local stack (`npm run bench`; the deploy rehearsal,
 * which lifts only the loopback-URL check); throws unless every host is on this machine.
 */
function loopbackAllowance(
  name: 'BENCH_ALLOW_LOCAL_STACK' | 'DEPLOY_REHEARSAL',
  user: string,
  source: Record<string, string | undefined>,
  env: Env,
): boolean {
  const value = source[name]
  if (value === undefined || value === '') return false
  const providerHosts = runningProviders(source).map((provider) => provider.apiUrl.name)
  const hosts = ['SITE_URL', 'SUPABASE_URL', ...providerHosts, 'SMTP_URL']
  const refused =
    value === '1'
      ? hosts.flatMap((host) => {
          const url = (env as unknown as Record<string, string | undefined>)[host]
          if (!url) return [`${host} is not set (unset means the real service)`]
          return isLoopback(url) ? [] : [`${host} is not a loopback address (${url})`]
        })
      : [`${name} must be 1 or unset (it is "${value}")`]
  if (refused.length > 0) {
    throw new Error(
      `Refusing to start: ${name} is set, which only ${user} on one machine may use:\n${bulleted(refused)}\nRemove ${name} from this deployment's environment.`,
    )
  }
  return true
}

/** Parses configuration; throws an Error whose message names every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const withDefaults: Record<string, string | undefined> = { ...source }
  if (source.NODE_ENV !== 'production') {
    // Only unset variables get the local stack's value: an empty provider URL is the real one.
    for (const [key, value] of Object.entries(LOCAL_DEFAULTS)) withDefaults[key] ??= value
  }
  const result = schemaFor(runningProviders(withDefaults)).safeParse(withDefaults)
  if (!result.success) {
    const lines = result.error.issues.map((issue) => {
      const name = issue.path.join('.')
      const missing = withDefaults[name] === undefined || withDefaults[name] === ''
      return `${name}: ${missing ? 'is required but not set' : issue.message}`
    })
    throw new Error(
      `Invalid configuration:\n${bulleted(lines)}\nSee .env.example for every variable.`,
    )
  }
  const env = result.data as Env
  env.RATE_LIMIT_STORE ??= env.NODE_ENV === 'production' ? 'postgres' : 'memory'
  if (env.NODE_ENV !== 'production') return env
  if (loopbackAllowance('BENCH_ALLOW_LOCAL_STACK', 'the benchmark', source, env)) return env
  const rehearsal = loopbackAllowance('DEPLOY_REHEARSAL', 'the deploy rehearsal', source, env)
  const problems = localOnlyProblems(env, rehearsal)
  if (problems.length > 0) {
    throw new Error(
      `Refusing to start in production with local-stack settings:\n${bulleted(problems)}\nSet real Supabase and payment provider credentials (see README, "Running with real accounts").`,
    )
  }
  return env
}

let cached: Env | undefined

/** The validated configuration of this process (parsed once, on first use at start-up). */
export function getEnv(): Env {
  cached ??= parseEnv(process.env)
  return cached
}

export function resetEnvForTests() {
  cached = undefined
}
