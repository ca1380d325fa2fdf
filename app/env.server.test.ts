import { describe, expect, it } from 'vitest'

import { PLAN_DEFINITIONS, planIdSettings } from './billing/plans'
import { catalogPlan } from './billing/plans.test-support'
import { type Env, LOCAL_DEFAULTS, LOCAL_SUPABASE_NEW_KEYS, parseEnv } from './env.server'
import { PRODUCTION_ENV } from './env.test-support'

const realistic = PRODUCTION_ENV
type Source = Record<string, string | undefined>

const publishable = 'sb_publishable_Q2x3y4z5a6b7c8d9e0f1g2_h3i4j5k6'
const secret = 'sb_secret_Z9y8x7w6v5u4t3s2r1q0p9_o8n7m6l5'
// Legacy keys as Supabase issues them: JWTs whose role claim says which they are.
const legacy = (role: string) =>
  `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ role, iss: 'supabase' })).toString('base64url')}.signature-part`
const localKeys = {
  SUPABASE_ANON_KEY: LOCAL_SUPABASE_NEW_KEYS.publishable,
  SUPABASE_SERVICE_ROLE_KEY: LOCAL_SUPABASE_NEW_KEYS.secret,
}
const bases: Record<string, Source> = {
  development: {},
  production: realistic,
  single: { ...realistic, RATE_LIMIT_STORE: 'memory', SINGLE_INSTANCE: 'true' },
  // The benchmark in production mode on one machine: the local stack on loopback hosts.
  bench: {
    ...LOCAL_DEFAULTS,
    NODE_ENV: 'production',
    SITE_URL: 'http://localhost:4900',
    SUPABASE_URL: 'http://127.0.0.1:54900',
    STRIPE_API_URL: 'http://127.0.0.1:12900',
    POLAR_API_URL: 'http://[::1]:12910',
    BENCH_ALLOW_LOCAL_STACK: '1',
  },
  // The deploy rehearsal: production against a local stack with fresh keys.
  rehearsal: {
    ...realistic,
    SITE_URL: 'http://localhost:4300',
    SUPABASE_URL: 'http://localhost:54500',
    STRIPE_API_URL: 'http://127.0.0.1:12300',
    POLAR_API_URL: 'http://127.0.0.1:12310',
    SMTP_URL: 'smtp://127.0.0.1:2700',
    DEPLOY_REHEARSAL: '1',
  },
}
const unset = undefined

describe('parseEnv', () => {
  it("has a Stripe price and a Polar product setting for each plan of the catalogue, the catalogue's ids in development and refused in production", () => {
    const development = parseEnv({})
    for (const plan of PLAN_DEFINITIONS) {
      const [stripePrice, polarProduct] = Object.keys(planIdSettings([plan]))
      expect(development[stripePrice as 'STRIPE_PRICE_PRO']).toBe(plan.stripe.priceId)
      expect(development[polarProduct as 'POLAR_PRODUCT_PRO']).toBe(plan.polar.productId)
      expect(() => parseEnv({ ...realistic, [stripePrice]: undefined })).toThrow(
        `${stripePrice}: is required but not set`,
      )
      expect(() => parseEnv({ ...realistic, [polarProduct]: plan.polar.productId })).toThrow(
        `${polarProduct} is the local emulator's id; set your account's own`,
      )
    }
  })

  // An empty API URL means the real service; unset means the local stack outside production
  // (the same rule in npm run dev, the server and npm run stripe:sync-products).
  it.each<[string, Source, Partial<Env>]>([
    [
      'development',
      {},
      {
        SITE_URL: 'http://localhost:5173',
        SUPABASE_URL: LOCAL_DEFAULTS.SUPABASE_URL,
        STRIPE_API_URL: LOCAL_DEFAULTS.STRIPE_API_URL,
        POLAR_API_URL: LOCAL_DEFAULTS.POLAR_API_URL,
        POLAR_SANDBOX: 'true',
        NODE_ENV: 'development',
        TRUSTED_PROXY_COUNT: 0,
        RATE_LIMIT_STORE: 'memory',
        SMTP_URL: 'smtp://127.0.0.1:54425',
        MAIL_POLL_INTERVAL_MS: 5_000,
        MAIL_RETRY_BASE_MS: 30_000,
        STRIPE_AUTOMATIC_TAX: false,
        DEPLOYMENT_ENVIRONMENT: unset,
      },
    ],
    [
      'production',
      {},
      {
        STRIPE_API_URL: unset,
        POLAR_API_URL: unset,
        POLAR_SANDBOX: 'false',
        RATE_LIMIT_STORE: 'postgres',
      },
    ],
    [
      'development',
      { STRIPE_API_URL: '', POLAR_API_URL: '' },
      { STRIPE_API_URL: unset, POLAR_API_URL: unset },
    ],
    ['production', { STRIPE_API_URL: '' }, { STRIPE_API_URL: unset }],
    ['production', { POLAR_SANDBOX: '' }, { POLAR_SANDBOX: unset }],
    ['production', { POLAR_SANDBOX: ' TRUE ' }, { POLAR_SANDBOX: 'true' }],
    ['production', { POLAR_SANDBOX: 'False' }, { POLAR_SANDBOX: 'false' }],
    [
      'production',
      { SUPABASE_ANON_KEY: publishable, SUPABASE_SERVICE_ROLE_KEY: secret },
      { SUPABASE_ANON_KEY: publishable, SUPABASE_SERVICE_ROLE_KEY: secret },
    ],
    [
      'production',
      { SUPABASE_ANON_KEY: legacy('anon'), SUPABASE_SERVICE_ROLE_KEY: legacy('service_role') },
      { SUPABASE_ANON_KEY: legacy('anon') },
    ],
    // The kinds may be mixed while a project moves to the new keys.
    [
      'production',
      { SUPABASE_ANON_KEY: legacy('anon'), SUPABASE_SERVICE_ROLE_KEY: secret },
      { SUPABASE_SERVICE_ROLE_KEY: secret },
    ],
    // Outside production the local stack's new keys are fine: it issues them.
    ['development', localKeys, localKeys],
    [
      'development',
      { TRUSTED_PROXY_COUNT: '', RATE_LIMIT_STORE: '' },
      { TRUSTED_PROXY_COUNT: 0, RATE_LIMIT_STORE: 'memory' },
    ],
    [
      'production',
      { TRUSTED_PROXY_COUNT: ' 2 ', RATE_LIMIT_STORE: 'postgres' },
      { TRUSTED_PROXY_COUNT: 2, RATE_LIMIT_STORE: 'postgres' },
    ],
    ['single', {}, { RATE_LIMIT_STORE: 'memory' }],
    [
      'production',
      { MAIL_FROM: 'Example <no-reply@example.com>' },
      { MAIL_FROM: 'Example <no-reply@example.com>' },
    ],
    ['production', { MAIL_FROM: 'no-reply@example.com' }, { MAIL_FROM: 'no-reply@example.com' }],
    ['bench', {}, { NODE_ENV: 'production', STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY }],
    ['rehearsal', {}, { NODE_ENV: 'production', STRIPE_API_URL: 'http://127.0.0.1:12300' }],
    // Development already runs on the local stack: the flag is ignored there.
    ['development', { DEPLOY_REHEARSAL: 'yes' }, { NODE_ENV: 'development' }],
    ['development', { STRIPE_AUTOMATIC_TAX: '' }, { STRIPE_AUTOMATIC_TAX: false }],
    ['development', { STRIPE_AUTOMATIC_TAX: 'false' }, { STRIPE_AUTOMATIC_TAX: false }],
    ['development', { STRIPE_AUTOMATIC_TAX: 'TRUE' }, { STRIPE_AUTOMATIC_TAX: true }],
    ['development', { DEPLOYMENT_ENVIRONMENT: 'staging' }, { DEPLOYMENT_ENVIRONMENT: 'staging' }],
  ])('accepts %s with %j', (base, overrides, expected) => {
    const env = parseEnv({ ...bases[base], ...overrides })
    const read = Object.keys(expected).map((name) => [name, env[name as keyof Env]])
    expect(Object.fromEntries(read)).toEqual(expected)
  })

  const loopback = (flag: string, name: string) =>
    new RegExp(`Refusing to start: ${flag}[\\s\\S]*${name} is not a loopback`)
  const realHost = (flag: string) =>
    new RegExp(
      `Refusing to start: ${flag} is set[\\s\\S]*SITE_URL is not a loopback address \\(https://app.example.com\\)[\\s\\S]*STRIPE_API_URL is not set`,
    )
  type Row = [string, Source, RegExp]

  it.each<Row>([
    [
      'production',
      { STRIPE_PRICE_PRO: unset, POLAR_PRODUCT_STARTER: unset },
      /STRIPE_PRICE_PRO: is required but not set\n {2}- POLAR_PRODUCT_STARTER: is required but not set/,
    ],
    [
      'production',
      {
        STRIPE_PRICE_STARTER: catalogPlan('starter').stripe.priceId,
        POLAR_PRODUCT_PRO: catalogPlan('pro').polar.productId,
      },
      /STRIPE_PRICE_STARTER is the local emulator's id[\s\S]*POLAR_PRODUCT_PRO is the local emulator's id/,
    ],
    ['production', { STRIPE_PRICE_PRO: 'prod_123' }, /STRIPE_PRICE_PRO: must be a Stripe price id/],
    ['production', { POLAR_PRODUCT_PRO: 'pro' }, /POLAR_PRODUCT_PRO: must be a Polar product id/],
    [
      'production',
      { POLAR_SANDBOX: '1' },
      /POLAR_SANDBOX: must be true or false \(any letter case\), or left unset/,
    ],
    ...[
      'https://app.example.com/',
      'https://app.example.com/app',
      'app.example.com',
      'ftp://app.example.com',
    ].map((value): Row => ['production', { SITE_URL: value }, /SITE_URL: must be an origin/]),
    [
      'development',
      { NODE_ENV: 'production', SITE_URL: 'https://app.example.com' },
      /SUPABASE_URL: is required[\s\S]*STRIPE_SECRET_KEY: is required[\s\S]*POLAR_WEBHOOK_SECRET: is required/,
    ],
    [
      'production',
      { STRIPE_SECRET_KEY: 'pk_live_nope' },
      /STRIPE_SECRET_KEY: must start with sk_test_/,
    ],
    [
      'development',
      { ...LOCAL_DEFAULTS, NODE_ENV: 'production' },
      /Refusing to start in production[\s\S]*SUPABASE_SERVICE_ROLE_KEY is the local emulator key[\s\S]*STRIPE_API_URL points at the local stack/,
    ],
    [
      'production',
      { STRIPE_WEBHOOK_SECRET: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET },
      /STRIPE_WEBHOOK_SECRET is the local emulator key/,
    ],
    ['production', { SUPABASE_ANON_KEY: secret }, /SUPABASE_ANON_KEY: is a secret key/],
    [
      'production',
      { SUPABASE_ANON_KEY: legacy('service_role') },
      /SUPABASE_ANON_KEY: is a secret key/,
    ],
    [
      'production',
      { SUPABASE_SERVICE_ROLE_KEY: publishable },
      /SUPABASE_SERVICE_ROLE_KEY: is a public key/,
    ],
    [
      'production',
      { SUPABASE_SERVICE_ROLE_KEY: legacy('anon') },
      /SUPABASE_SERVICE_ROLE_KEY: is a public key/,
    ],
    [
      'production',
      localKeys,
      /SUPABASE_ANON_KEY is the local emulator key[\s\S]*SUPABASE_SERVICE_ROLE_KEY is the local emulator key/,
    ],
    ...['-1', '1.5', 'yes'].map((value): Row => [
      'development',
      { TRUSTED_PROXY_COUNT: value },
      /TRUSTED_PROXY_COUNT: must be a whole number/,
    ]),
    [
      'production',
      { RATE_LIMIT_STORE: 'memory' },
      /RATE_LIMIT_STORE=memory counts per instance: unset it, or SINGLE_INSTANCE=true/,
    ],
    ['single', { SINGLE_INSTANCE: 'yes' }, /SINGLE_INSTANCE: must be true or false/],
    ['development', { RATE_LIMIT_STORE: 'redis' }, /RATE_LIMIT_STORE: must be memory or postgres/],
    [
      'production',
      { SMTP_URL: unset, MAIL_FROM: unset },
      /SMTP_URL: is required but not set[\s\S]*MAIL_FROM: is required but not set/,
    ],
    ['production', { SMTP_URL: LOCAL_DEFAULTS.SMTP_URL }, /SMTP_URL is the local stack's inbox/],
    ['production', { SMTP_URL: 'http://smtp.example.com' }, /SMTP_URL/],
    ['production', { SMTP_URL: 'smtp.example.com:587' }, /SMTP_URL/],
    ...['no-reply', 'Example <no-reply>', 'a@b.com\r\nBcc: x@y.com'].map((value): Row => [
      'production',
      { MAIL_FROM: value },
      /MAIL_FROM: must be/,
    ]),
    ...[
      ['SITE_URL', 'https://app.example.com'],
      ['SUPABASE_URL', 'https://abcd.supabase.co'],
      ['STRIPE_API_URL', 'https://api.stripe.com'],
      ['POLAR_API_URL', 'https://api.polar.sh'],
      ['SMTP_URL', 'smtps://user:pass@smtp.example.com:465'],
      // A name that merely starts like a loopback address is not one.
      ['SUPABASE_URL', 'http://127.0.0.1.example.com'],
      ['STRIPE_API_URL', 'http://localhost.example.com'],
    ].map(([name, value]): Row => [
      'bench',
      { [name]: value },
      loopback('BENCH_ALLOW_LOCAL_STACK', name),
    ]),
    // An unset provider URL means the real provider.
    ['bench', { POLAR_API_URL: '' }, /BENCH_ALLOW_LOCAL_STACK[\s\S]*POLAR_API_URL is not set/],
    ['bench', { STRIPE_API_URL: unset }, /STRIPE_API_URL is not set/],
    // A real deployment with either flag refuses to start, even with real keys.
    ['production', { BENCH_ALLOW_LOCAL_STACK: '1' }, realHost('BENCH_ALLOW_LOCAL_STACK')],
    ['production', { DEPLOY_REHEARSAL: '1' }, realHost('DEPLOY_REHEARSAL')],
    ...['true', 'yes', '0'].map((value): Row => [
      'bench',
      { BENCH_ALLOW_LOCAL_STACK: value },
      /BENCH_ALLOW_LOCAL_STACK must be 1 or unset/,
    ]),
    [
      'bench',
      { BENCH_ALLOW_LOCAL_STACK: unset },
      /Refusing to start in production with local-stack settings/,
    ],
    ['rehearsal', { DEPLOY_REHEARSAL: unset }, /STRIPE_API_URL points at the local stack/],
    [
      'rehearsal',
      {
        STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
        SUPABASE_SERVICE_ROLE_KEY: LOCAL_DEFAULTS.SUPABASE_SERVICE_ROLE_KEY,
        POLAR_PRODUCT_PRO: catalogPlan('pro').polar.productId,
        SMTP_URL: LOCAL_DEFAULTS.SMTP_URL,
      },
      /SUPABASE_SERVICE_ROLE_KEY is the local emulator key[\s\S]*STRIPE_SECRET_KEY is the local emulator key[\s\S]*POLAR_PRODUCT_PRO is the local emulator's id[\s\S]*SMTP_URL is the local stack's inbox/,
    ],
    [
      'rehearsal',
      { SUPABASE_URL: 'https://abcd.supabase.co' },
      loopback('DEPLOY_REHEARSAL', 'SUPABASE_URL'),
    ],
    ['rehearsal', { DEPLOY_REHEARSAL: 'true' }, /DEPLOY_REHEARSAL must be 1 or unset/],
    ['development', { STRIPE_AUTOMATIC_TAX: 'yes' }, /STRIPE_AUTOMATIC_TAX: must be true or false/],
    [
      'development',
      { DEPLOYMENT_ENVIRONMENT: 'prod' },
      /DEPLOYMENT_ENVIRONMENT: must be production or staging/,
    ],
  ])('refuses %s with %j, naming the variable', (base, overrides, message) => {
    expect(() => parseEnv({ ...bases[base], ...overrides })).toThrow(message)
  })
})
