import { afterEach, describe, expect, it, vi } from 'vitest'

import type { PolarPurpose } from './client.server'

const env = {
  NODE_ENV: 'development' as 'development' | 'production' | 'test',
  POLAR_SANDBOX: undefined as 'true' | 'false' | undefined,
  POLAR_API_URL: undefined as string | undefined,
  POLAR_ACCESS_TOKEN: 'polar_oat_unit_test',
}
vi.mock('~/env.server', () => ({ getEnv: () => env }))

const { describePolarServers, getPolar, polarServer } = await import('./client.server')

/** The origin the client of `purpose` sends its requests to, each with the access token. */
async function originOf(purpose: PolarPurpose) {
  const fetchSpy = vi
    .spyOn(globalThis, 'fetch')
    .mockResolvedValue(Response.json({ error: 'x', detail: 'x' }, { status: 404 }))
  await getPolar(purpose)
    .checkouts.get('00000000-0000-4000-8000-000000000000')
    .catch(() => undefined)
  const [url, init] = fetchSpy.mock.calls[0] ?? []
  expect(new Headers(init?.headers).get('authorization')).toBe('Bearer polar_oat_unit_test')
  return new URL(String(url)).origin
}

afterEach(() => {
  vi.restoreAllMocks()
  Object.assign(env, {
    NODE_ENV: 'development',
    POLAR_SANDBOX: undefined,
    POLAR_API_URL: undefined,
  })
})

describe('polarServer, as the interface contract says', () => {
  it.each([
    // flag, NODE_ENV, checkout, portal, invoices
    [undefined, 'development', 'sandbox', 'sandbox', 'production'],
    ['true', 'development', 'sandbox', 'sandbox', 'sandbox'],
    ['false', 'development', 'production', 'sandbox', 'production'],
    [undefined, 'production', 'sandbox', 'production', 'production'],
    ['true', 'production', 'sandbox', 'production', 'sandbox'],
    ['false', 'production', 'production', 'production', 'production'],
  ] as const)(
    'POLAR_SANDBOX=%s, NODE_ENV=%s: checkout %s, portal %s, invoices %s',
    (flag, nodeEnv, checkout, portal, invoices) => {
      const settings = { POLAR_SANDBOX: flag, NODE_ENV: nodeEnv, POLAR_API_URL: undefined }
      expect(polarServer(settings, 'checkout')).toBe(checkout)
      expect(polarServer(settings, 'portal')).toBe(portal)
      expect(polarServer(settings, 'invoices')).toBe(invoices)
    },
  )
})

describe('describePolarServers', () => {
  const real = { POLAR_API_URL: undefined }

  it('names the one server when all three agree', () => {
    expect(
      describePolarServers({ ...real, POLAR_SANDBOX: 'false', NODE_ENV: 'production' }),
    ).toEqual({
      info: 'Polar servers: checkout production, portal production, webhook invoices production',
    })
  })

  it.each([
    // POLAR_SANDBOX, NODE_ENV, DEPLOYMENT_ENVIRONMENT, what the refusal says to set
    [undefined, 'production', undefined, /For production set POLAR_SANDBOX=false/],
    ['true', 'production', undefined, /POLAR_SANDBOX=true and DEPLOYMENT_ENVIRONMENT=staging/],
    [
      undefined,
      'production',
      'staging',
      /staging deployment on the Polar sandbox set POLAR_SANDBOX=true/,
    ],
    [
      'false',
      'production',
      'staging',
      /For production set POLAR_SANDBOX=false and DEPLOYMENT_ENVIRONMENT=production/,
    ],
    [undefined, 'development', undefined, /Set POLAR_SANDBOX=true/],
    ['false', 'development', undefined, /Set POLAR_SANDBOX=true/],
  ] as const)(
    'refuses POLAR_SANDBOX=%s with NODE_ENV=%s, DEPLOYMENT_ENVIRONMENT=%s, naming the settings',
    (flag, nodeEnv, deployment, fix) => {
      const settings = { ...real, POLAR_SANDBOX: flag, DEPLOYMENT_ENVIRONMENT: deployment }
      const check = () => describePolarServers({ ...settings, NODE_ENV: nodeEnv })
      expect(check).toThrow(
        /^Refusing to start: checkout, portal and webhook invoices would reach different Polar servers/,
      )
      expect(check).toThrow(`POLAR_SANDBOX ${flag ?? 'unset'}`)
      expect(check).toThrow(fix)
    },
  )

  it('a staging deployment of the production build on the sandbox starts, all on the sandbox', () => {
    const staging = { ...real, POLAR_SANDBOX: 'true', NODE_ENV: 'production' } as const
    expect(() => describePolarServers(staging)).toThrow(/different Polar servers/)
    expect(describePolarServers({ ...staging, DEPLOYMENT_ENVIRONMENT: 'staging' })).toEqual({
      info: 'Polar servers: checkout sandbox, portal sandbox, webhook invoices sandbox',
    })
    expect(polarServer({ ...staging, DEPLOYMENT_ENVIRONMENT: 'staging' }, 'portal')).toBe('sandbox')
    // Saying production where NODE_ENV is not: the portal follows the deployment.
    const declared = {
      ...real,
      POLAR_SANDBOX: 'false',
      DEPLOYMENT_ENVIRONMENT: 'production',
    } as const
    expect(polarServer({ ...declared, NODE_ENV: 'test' }, 'portal')).toBe('production')
  })

  it('reports the emulator URL when POLAR_API_URL is set', () => {
    expect(
      describePolarServers({
        POLAR_SANDBOX: 'true',
        NODE_ENV: 'test',
        POLAR_API_URL: 'http://127.0.0.1:12112',
      }),
    ).toEqual({ info: 'Polar: every call goes to POLAR_API_URL (http://127.0.0.1:12112)' })
  })
})

describe('getPolar', () => {
  const [sandbox, production] = ['https://sandbox-api.polar.sh', 'https://api.polar.sh']
  const local = 'http://127.0.0.1:12112'
  const everywhere = {
    POLAR_API_URL: local,
    NODE_ENV: 'production',
    POLAR_SANDBOX: 'false',
  } as const
  it.each<[Partial<typeof env>, PolarPurpose, string]>([
    [{}, 'checkout', sandbox],
    [{}, 'invoices', production],
    [{ POLAR_SANDBOX: 'true' }, 'invoices', sandbox],
    [{ POLAR_SANDBOX: 'false' }, 'checkout', production],
    [{ POLAR_SANDBOX: 'false', NODE_ENV: 'production' }, 'portal', production],
    // POLAR_API_URL (the local emulator) wins over all.
    ...(['checkout', 'portal', 'invoices'] as const).map(
      (purpose): [Partial<typeof env>, PolarPurpose, string] => [everywhere, purpose, local],
    ),
  ])('sends %o %s to %s', async (settings, purpose, origin) => {
    Object.assign(env, settings)
    expect(await originOf(purpose)).toBe(origin)
  })
})
