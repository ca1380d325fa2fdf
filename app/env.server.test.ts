import { describe, expect, it } from 'vitest'

import { PLAN_DEFINITIONS, planIdSettings } from './billing/plans'
import { catalogPlan } from './billing/plans.test-support'
import { LOCAL_DEFAULTS, LOCAL_SUPABASE_NEW_KEYS, parseEnv } from './env.server'
import { PRODUCTION_ENV } from './env.test-support'

const realistic = PRODUCTION_ENV

describe('parseEnv: the plan catalogue in production', () => {
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

  it('requires every plan id, listing all that are missing at once', () => {
    const { STRIPE_PRICE_PRO: _a, POLAR_PRODUCT_STARTER: _b, ...withoutTwo } = realistic
    expect(() => parseEnv(withoutTwo)).toThrow(
      /STRIPE_PRICE_PRO: is required but not set\n {2}- POLAR_PRODUCT_STARTER: is required but not set/,
    )
  })

  it("refuses the local emulator's ids, naming each", () => {
    const local = {
      ...realistic,
      STRIPE_PRICE_STARTER: catalogPlan('starter').stripe.priceId,
      POLAR_PRODUCT_PRO: catalogPlan('pro').polar.productId,
    }
    expect(() => parseEnv(local)).toThrow(
      /STRIPE_PRICE_STARTER is the local emulator's id[\s\S]*POLAR_PRODUCT_PRO is the local emulator's id/,
    )
  })

  it('refuses a product id where a price id belongs, and a non-UUID Polar product', () => {
    expect(() => parseEnv({ ...realistic, STRIPE_PRICE_PRO: 'prod_123' })).toThrow(
      /STRIPE_PRICE_PRO: must be a Stripe price id/,
    )
    expect(() => parseEnv({ ...realistic, POLAR_PRODUCT_PRO: 'pro' })).toThrow(
      /POLAR_PRODUCT_PRO: must be a Polar product id/,
    )
  })
})

describe('parseEnv', () => {
  it('runs a fresh clone with no variables at all, on the local defaults', () => {
    const env = parseEnv({})
    expect(env.SITE_URL).toBe('http://localhost:5173')
    expect(env.SUPABASE_URL).toBe(LOCAL_DEFAULTS.SUPABASE_URL)
    expect(env.STRIPE_API_URL).toBe(LOCAL_DEFAULTS.STRIPE_API_URL)
    expect(env.POLAR_SANDBOX).toBe('true')
    expect(env.NODE_ENV).toBe('development')
  })

  it('accepts real production settings; unset API URLs mean the real providers', () => {
    const env = parseEnv(realistic)
    expect(env.STRIPE_API_URL).toBeUndefined()
    expect(env.POLAR_API_URL).toBeUndefined()
    expect(env.POLAR_SANDBOX).toBe('false')
    expect(parseEnv({ ...realistic, POLAR_SANDBOX: '' }).POLAR_SANDBOX).toBeUndefined()
    expect(parseEnv({ ...realistic, POLAR_SANDBOX: ' TRUE ' }).POLAR_SANDBOX).toBe('true')
    expect(parseEnv({ ...realistic, POLAR_SANDBOX: 'False' }).POLAR_SANDBOX).toBe('false')
    expect(() => parseEnv({ ...realistic, POLAR_SANDBOX: '1' })).toThrow(
      /POLAR_SANDBOX: must be true or false \(any letter case\), or left unset/,
    )
  })

  it.each([
    ['https://app.example.com/', 'trailing slash'],
    ['https://app.example.com/app', 'a path'],
    ['app.example.com', 'no scheme'],
    ['ftp://app.example.com', 'another scheme'],
  ])('rejects SITE_URL %s (%s), naming the variable', (value) => {
    expect(() => parseEnv({ ...realistic, SITE_URL: value })).toThrow(/SITE_URL: must be an origin/)
  })

  it('names every missing variable in production', () => {
    expect(() => parseEnv({ NODE_ENV: 'production', SITE_URL: 'https://app.example.com' })).toThrow(
      /SUPABASE_URL: is required[\s\S]*STRIPE_SECRET_KEY: is required[\s\S]*POLAR_WEBHOOK_SECRET: is required/,
    )
  })

  it('names a malformed variable', () => {
    expect(() => parseEnv({ ...realistic, STRIPE_SECRET_KEY: 'pk_live_nope' })).toThrow(
      /STRIPE_SECRET_KEY: must start with sk_test_/,
    )
  })

  it('refuses to start in production with local emulator keys, and says which', () => {
    expect(() => parseEnv({ ...LOCAL_DEFAULTS, NODE_ENV: 'production' })).toThrow(
      /Refusing to start in production[\s\S]*SUPABASE_SERVICE_ROLE_KEY is the local emulator key[\s\S]*STRIPE_API_URL points at the local stack/,
    )
    expect(() =>
      parseEnv({ ...realistic, STRIPE_WEBHOOK_SECRET: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET }),
    ).toThrow(/STRIPE_WEBHOOK_SECRET is the local emulator key/)
  })
})

describe('Supabase keys of either kind', () => {
  const publishable = 'sb_publishable_Q2x3y4z5a6b7c8d9e0f1g2_h3i4j5k6'
  const secret = 'sb_secret_Z9y8x7w6v5u4t3s2r1q0p9_o8n7m6l5'
  // Legacy keys as Supabase issues them: JWTs whose role claim says which they are.
  const legacy = (role: string) =>
    `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify({ role, iss: 'supabase' })).toString('base64url')}.signature-part`

  it('accepts the publishable and secret keys, and the legacy anon and service_role keys', () => {
    expect(
      parseEnv({ ...realistic, SUPABASE_ANON_KEY: publishable, SUPABASE_SERVICE_ROLE_KEY: secret }),
    ).toMatchObject({ SUPABASE_ANON_KEY: publishable, SUPABASE_SERVICE_ROLE_KEY: secret })
    expect(
      parseEnv({
        ...realistic,
        SUPABASE_ANON_KEY: legacy('anon'),
        SUPABASE_SERVICE_ROLE_KEY: legacy('service_role'),
      }),
    ).toMatchObject({ SUPABASE_ANON_KEY: legacy('anon') })
    // The kinds may be mixed while a project moves to the new keys.
    expect(() =>
      parseEnv({
        ...realistic,
        SUPABASE_ANON_KEY: legacy('anon'),
        SUPABASE_SERVICE_ROLE_KEY: secret,
      }),
    ).not.toThrow()
  })

  it('refuses a secret key where the public key goes, and a public key where the secret goes', () => {
    expect(() => parseEnv({ ...realistic, SUPABASE_ANON_KEY: secret })).toThrow(
      /SUPABASE_ANON_KEY: is a secret key/,
    )
    expect(() => parseEnv({ ...realistic, SUPABASE_ANON_KEY: legacy('service_role') })).toThrow(
      /SUPABASE_ANON_KEY: is a secret key/,
    )
    expect(() => parseEnv({ ...realistic, SUPABASE_SERVICE_ROLE_KEY: publishable })).toThrow(
      /SUPABASE_SERVICE_ROLE_KEY: is a public key/,
    )
    expect(() => parseEnv({ ...realistic, SUPABASE_SERVICE_ROLE_KEY: legacy('anon') })).toThrow(
      /SUPABASE_SERVICE_ROLE_KEY: is a public key/,
    )
  })

  it('refuses the local stack’s publishable and secret keys in production, as the legacy ones', () => {
    expect(() =>
      parseEnv({
        ...realistic,
        SUPABASE_ANON_KEY: LOCAL_SUPABASE_NEW_KEYS.publishable,
        SUPABASE_SERVICE_ROLE_KEY: LOCAL_SUPABASE_NEW_KEYS.secret,
      }),
    ).toThrow(
      /SUPABASE_ANON_KEY is the local emulator key[\s\S]*SUPABASE_SERVICE_ROLE_KEY is the local emulator key/,
    )
    // Outside production they are fine: the local stack issues them.
    expect(() =>
      parseEnv({
        SUPABASE_ANON_KEY: LOCAL_SUPABASE_NEW_KEYS.publishable,
        SUPABASE_SERVICE_ROLE_KEY: LOCAL_SUPABASE_NEW_KEYS.secret,
      }),
    ).not.toThrow()
  })
})

describe('rate-limit settings', () => {
  it('default to no trusted proxy and the in-process store', () => {
    const env = parseEnv({})
    expect(env.TRUSTED_PROXY_COUNT).toBe(0)
    expect(env.RATE_LIMIT_STORE).toBe('memory')
    expect(parseEnv({ TRUSTED_PROXY_COUNT: '', RATE_LIMIT_STORE: '' })).toMatchObject({
      TRUSTED_PROXY_COUNT: 0,
      RATE_LIMIT_STORE: 'memory',
    })
  })

  it('read a whole number of proxies and the postgres store', () => {
    const env = parseEnv({ ...realistic, TRUSTED_PROXY_COUNT: ' 2 ', RATE_LIMIT_STORE: 'postgres' })
    expect(env.TRUSTED_PROXY_COUNT).toBe(2)
    expect(env.RATE_LIMIT_STORE).toBe('postgres')
  })

  it.each(['-1', '1.5', 'yes'])('rejects TRUSTED_PROXY_COUNT %j, naming it', (value) => {
    expect(() => parseEnv({ TRUSTED_PROXY_COUNT: value })).toThrow(
      /TRUSTED_PROXY_COUNT: must be a whole number/,
    )
  })

  it('in production, refuse the in-process store unless the deployment says it is one instance', () => {
    expect(parseEnv(realistic).RATE_LIMIT_STORE).toBe('postgres')
    expect(() => parseEnv({ ...realistic, RATE_LIMIT_STORE: 'memory' })).toThrow(
      /RATE_LIMIT_STORE=memory counts per instance: unset it, or SINGLE_INSTANCE=true/,
    )
    const single = { ...realistic, RATE_LIMIT_STORE: 'memory', SINGLE_INSTANCE: 'true' }
    expect(parseEnv(single).RATE_LIMIT_STORE).toBe('memory')
    expect(() => parseEnv({ ...single, SINGLE_INSTANCE: 'yes' })).toThrow(
      /SINGLE_INSTANCE: must be true or false/,
    )
  })

  it('rejects an unknown RATE_LIMIT_STORE, naming it', () => {
    expect(() => parseEnv({ RATE_LIMIT_STORE: 'redis' })).toThrow(
      /RATE_LIMIT_STORE: must be memory or postgres/,
    )
  })
})

describe('parseEnv: notification mail settings', () => {
  it('production needs SMTP_URL and MAIL_FROM, and says so', () => {
    const { SMTP_URL: _url, MAIL_FROM: _from, ...withoutMail } = realistic
    expect(() => parseEnv(withoutMail)).toThrow(
      /SMTP_URL: is required but not set[\s\S]*MAIL_FROM: is required but not set/,
    )
  })

  it('production refuses the local inbox as its SMTP server', () => {
    expect(() => parseEnv({ ...realistic, SMTP_URL: LOCAL_DEFAULTS.SMTP_URL })).toThrow(
      /SMTP_URL is the local stack's inbox/,
    )
  })

  it.each([
    ['http://smtp.example.com', 'SMTP_URL'],
    ['smtp.example.com:587', 'SMTP_URL'],
  ])('rejects SMTP_URL %s', (value, name) => {
    expect(() => parseEnv({ ...realistic, SMTP_URL: value })).toThrow(new RegExp(name))
  })

  it.each(['Example <no-reply@example.com>', 'no-reply@example.com'])(
    'accepts MAIL_FROM %s',
    (value) => {
      expect(parseEnv({ ...realistic, MAIL_FROM: value }).MAIL_FROM).toBe(value)
    },
  )

  it.each(['no-reply', 'Example <no-reply>', 'a@b.com\r\nBcc: x@y.com'])(
    'rejects MAIL_FROM %j',
    (value) => {
      expect(() => parseEnv({ ...realistic, MAIL_FROM: value })).toThrow(/MAIL_FROM: must be/)
    },
  )

  it('development defaults to the local inbox', () => {
    const env = parseEnv({})
    expect(env.SMTP_URL).toBe('smtp://127.0.0.1:54425')
    expect(env.MAIL_POLL_INTERVAL_MS).toBe(5_000)
    expect(env.MAIL_RETRY_BASE_MS).toBe(30_000)
  })
})

describe('BENCH_ALLOW_LOCAL_STACK (the benchmark in production mode on one machine)', () => {
  const bench = {
    ...LOCAL_DEFAULTS,
    NODE_ENV: 'production',
    SITE_URL: 'http://localhost:4900',
    SUPABASE_URL: 'http://127.0.0.1:54900',
    STRIPE_API_URL: 'http://127.0.0.1:12900',
    POLAR_API_URL: 'http://[::1]:12910',
    BENCH_ALLOW_LOCAL_STACK: '1',
  }

  it('lets production run on the local stack when the site and every host are loopback', () => {
    const env = parseEnv(bench)
    expect(env.NODE_ENV).toBe('production')
    expect(env.STRIPE_SECRET_KEY).toBe(LOCAL_DEFAULTS.STRIPE_SECRET_KEY)
  })

  it('is refused, naming the host, when any host is not loopback', () => {
    for (const [name, value] of [
      ['SITE_URL', 'https://app.example.com'],
      ['SUPABASE_URL', 'https://abcd.supabase.co'],
      ['STRIPE_API_URL', 'https://api.stripe.com'],
      ['POLAR_API_URL', 'https://api.polar.sh'],
      ['SMTP_URL', 'smtps://user:pass@smtp.example.com:465'],
      // A name that merely starts like a loopback address is not one.
      ['SUPABASE_URL', 'http://127.0.0.1.example.com'],
      ['STRIPE_API_URL', 'http://localhost.example.com'],
    ]) {
      expect(() => parseEnv({ ...bench, [name]: value })).toThrow(
        new RegExp(`Refusing to start: BENCH_ALLOW_LOCAL_STACK[\\s\\S]*${name} is not a loopback`),
      )
    }
  })

  it('is refused when a provider URL is unset (that means the real provider)', () => {
    expect(() => parseEnv({ ...bench, POLAR_API_URL: '' })).toThrow(
      /BENCH_ALLOW_LOCAL_STACK[\s\S]*POLAR_API_URL is not set/,
    )
    const { STRIPE_API_URL: _unset, ...withoutStripe } = bench
    expect(() => parseEnv(withoutStripe)).toThrow(/STRIPE_API_URL is not set/)
  })

  it('makes a real deployment refuse to start, even with real keys', () => {
    expect(() => parseEnv({ ...realistic, BENCH_ALLOW_LOCAL_STACK: '1' })).toThrow(
      /Refusing to start: BENCH_ALLOW_LOCAL_STACK is set[\s\S]*SITE_URL is not a loopback address \(https:\/\/app.example.com\)[\s\S]*STRIPE_API_URL is not set/,
    )
  })

  it('accepts only the value 1', () => {
    for (const value of ['true', 'yes', '0']) {
      expect(() => parseEnv({ ...bench, BENCH_ALLOW_LOCAL_STACK: value })).toThrow(
        /BENCH_ALLOW_LOCAL_STACK must be 1 or unset/,
      )
    }
  })

  it('without it, the same loopback settings are refused as before', () => {
    const { BENCH_ALLOW_LOCAL_STACK: _unset, ...withoutAllowance } = bench
    expect(() => parseEnv(withoutAllowance)).toThrow(
      /Refusing to start in production with local-stack settings/,
    )
  })
})

describe('DEPLOY_REHEARSAL (the deploy rehearsal: production against a local stack with fresh keys)', () => {
  const rehearsal = {
    ...realistic,
    SITE_URL: 'http://localhost:4300',
    SUPABASE_URL: 'http://localhost:54500',
    STRIPE_API_URL: 'http://127.0.0.1:12300',
    POLAR_API_URL: 'http://127.0.0.1:12310',
    SMTP_URL: 'smtp://127.0.0.1:2700',
    DEPLOY_REHEARSAL: '1',
  }

  it('lets production use loopback provider URLs when the site and every host are loopback', () => {
    const env = parseEnv(rehearsal)
    expect(env.NODE_ENV).toBe('production')
    expect(env.STRIPE_API_URL).toBe('http://127.0.0.1:12300')
    const { DEPLOY_REHEARSAL: _unset, ...without } = rehearsal
    expect(() => parseEnv(without)).toThrow(/STRIPE_API_URL points at the local stack/)
  })

  it("still refuses the local stack's published keys, plan ids and inbox", () => {
    expect(() =>
      parseEnv({
        ...rehearsal,
        STRIPE_SECRET_KEY: LOCAL_DEFAULTS.STRIPE_SECRET_KEY,
        SUPABASE_SERVICE_ROLE_KEY: LOCAL_DEFAULTS.SUPABASE_SERVICE_ROLE_KEY,
        POLAR_PRODUCT_PRO: catalogPlan('pro').polar.productId,
        SMTP_URL: LOCAL_DEFAULTS.SMTP_URL,
      }),
    ).toThrow(
      /SUPABASE_SERVICE_ROLE_KEY is the local emulator key[\s\S]*STRIPE_SECRET_KEY is the local emulator key[\s\S]*POLAR_PRODUCT_PRO is the local emulator's id[\s\S]*SMTP_URL is the local stack's inbox/,
    )
  })

  it('makes a deployment on a real host refuse to start, naming the host', () => {
    expect(() => parseEnv({ ...realistic, DEPLOY_REHEARSAL: '1' })).toThrow(
      /Refusing to start: DEPLOY_REHEARSAL is set[\s\S]*SITE_URL is not a loopback address \(https:\/\/app.example.com\)[\s\S]*STRIPE_API_URL is not set/,
    )
    expect(() => parseEnv({ ...rehearsal, SUPABASE_URL: 'https://abcd.supabase.co' })).toThrow(
      /DEPLOY_REHEARSAL[\s\S]*SUPABASE_URL is not a loopback address/,
    )
    expect(() => parseEnv({ ...rehearsal, DEPLOY_REHEARSAL: 'true' })).toThrow(
      /DEPLOY_REHEARSAL must be 1 or unset/,
    )
  })

  it('is ignored outside production (development already runs on the local stack)', () => {
    expect(parseEnv({ DEPLOY_REHEARSAL: 'yes' }).NODE_ENV).toBe('development')
  })
})

describe('STRIPE_AUTOMATIC_TAX and DEPLOYMENT_ENVIRONMENT', () => {
  it('automatic tax is off unless "true" in any letter case, and refuses anything else', () => {
    expect(parseEnv({}).STRIPE_AUTOMATIC_TAX).toBe(false)
    expect(parseEnv({ STRIPE_AUTOMATIC_TAX: '' }).STRIPE_AUTOMATIC_TAX).toBe(false)
    expect(parseEnv({ STRIPE_AUTOMATIC_TAX: 'false' }).STRIPE_AUTOMATIC_TAX).toBe(false)
    expect(parseEnv({ STRIPE_AUTOMATIC_TAX: 'TRUE' }).STRIPE_AUTOMATIC_TAX).toBe(true)
    expect(() => parseEnv({ STRIPE_AUTOMATIC_TAX: 'yes' })).toThrow(
      /STRIPE_AUTOMATIC_TAX: must be true or false/,
    )
  })

  it('the deployment environment is production, staging or unset', () => {
    expect(parseEnv({}).DEPLOYMENT_ENVIRONMENT).toBeUndefined()
    expect(parseEnv({ DEPLOYMENT_ENVIRONMENT: 'staging' }).DEPLOYMENT_ENVIRONMENT).toBe('staging')
    expect(() => parseEnv({ DEPLOYMENT_ENVIRONMENT: 'prod' })).toThrow(
      /DEPLOYMENT_ENVIRONMENT: must be production or staging/,
    )
  })
})

describe('STRIPE_API_URL and POLAR_API_URL: one rule in every command', () => {
  // npm run dev (tools/dev-plan.ts) and every command that parses the configuration
  // (the server, npm run stripe:sync-products) read the same variable the same way.
  it('empty means the real service; unset means the local stack outside production', () => {
    const real = parseEnv({ STRIPE_API_URL: '', POLAR_API_URL: '' })
    expect(real.STRIPE_API_URL).toBeUndefined()
    expect(real.POLAR_API_URL).toBeUndefined()
    const local = parseEnv({})
    expect(local.STRIPE_API_URL).toBe(LOCAL_DEFAULTS.STRIPE_API_URL)
    expect(local.POLAR_API_URL).toBe(LOCAL_DEFAULTS.POLAR_API_URL)
    // Production has no local stack: unset is the real service there too.
    expect(parseEnv(realistic).STRIPE_API_URL).toBeUndefined()
    expect(parseEnv({ ...realistic, STRIPE_API_URL: '' }).STRIPE_API_URL).toBeUndefined()
  })
})
