import { PolarClientError } from '@polar-sh/sdk'
import { createPolar } from '@polar-sh/sdk/2026-10'
import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { type PolarEmulator, startPolarEmulator } from './index'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const MISSING = '00000000-0000-4000-8000-000000000000'
const started: PolarEmulator[] = []

afterEach(async () => {
  while (started.length) await started.pop()!.close()
})

async function server(token: string, scopes?: string[]) {
  const emulator = await startPolarEmulator({
    catalog: LOCAL_CATALOG,
    accessToken: token,
    accessTokenScopes: scopes,
    webhookSecret: `polar_whs_${token}`,
    invoiceDelayMs: 0,
  })
  started.push(emulator)
  return { emulator, polar: createPolar({ accessToken: token, baseUrl: emulator.url }) }
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a refusal')
    },
    (e: unknown) => e as PolarClientError,
  )
const body = (error: PolarClientError) => JSON.parse(error.error as string) as unknown

describe('tokens, scopes and versions', () => {
  it('are per server: a token sent to the other one is 401 invalid_token, and its data is not there', async () => {
    const sandbox = await server('polar_oat_sandbox')
    const production = await server('polar_oat_production')
    const checkout = await sandbox.polar.checkouts.create({ products: [PRO] })

    const misdirected = createPolar({
      accessToken: 'polar_oat_sandbox',
      baseUrl: production.emulator.url,
    })
    const error = await failure(misdirected.checkouts.get(checkout.id))
    expect(error.statusCode).toBe(401)
    expect(body(error)).toEqual({
      error: 'invalid_token',
      error_description:
        'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
    })
    expect((await failure(production.polar.checkouts.get(checkout.id))).statusCode).toBe(404)

    const bare = await fetch(`${sandbox.emulator.url}/v1/orders/`)
    expect(bare.status).toBe(401)
    expect(await bare.json()).toEqual({ error: 'Unauthorized', detail: 'Unauthorized' })
    expect(bare.headers.get('www-authenticate')).toBe('Bearer realm="polar"')
  })

  it("answers 403 insufficient_scope naming the route's scopes; a read scope lets reads through", async () => {
    const { emulator, polar } = await server('polar_oat_narrow', ['checkouts:read'])
    const error = await failure(polar.checkouts.create({ products: [PRO] }))
    expect(error.statusCode).toBe(403)
    expect(body(error)).toEqual({
      error: 'insufficient_scope',
      error_description:
        'The request requires higher privileges than provided by the access token.',
    })
    const raw = await fetch(`${emulator.url}/v1/subscriptions/`, {
      headers: { authorization: 'Bearer polar_oat_narrow' },
    })
    expect(raw.status).toBe(403)
    expect(raw.headers.get('www-authenticate')).toContain(
      'scope="subscriptions:read subscriptions:write"',
    )
    expect((await failure(polar.checkouts.get(MISSING))).statusCode).toBe(404)
  })

  it('checks Polar-Version: absent or served passes (and is echoed), anything else is 404', async () => {
    const { emulator } = await server('polar_oat_v')
    const get = (version?: string) =>
      fetch(`${emulator.url}/v1/orders/`, {
        headers: {
          authorization: 'Bearer polar_oat_v',
          ...(version ? { 'polar-version': version } : {}),
        },
      })
    expect((await get()).headers.get('polar-version')).toBe('2026-04')
    expect((await get('2026-10')).headers.get('polar-version')).toBe('2026-10')
    for (const version of ['2025-01', '2026-1', 'latest']) {
      const refused = await get(version)
      expect(refused.status).toBe(404)
      expect(await refused.json()).toEqual({ detail: 'Not Found' })
    }
  })
})
