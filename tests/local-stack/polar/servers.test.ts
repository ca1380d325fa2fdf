import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup } from './test-helpers'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const MISSING = '00000000-0000-4000-8000-000000000000'
const started: { close(): Promise<void> }[] = []

afterEach(async () => {
  while (started.length) await started.pop()!.close()
})

async function server(token: string, scopes?: string[]) {
  const env = await setup({ accessToken: token, accessTokenScopes: scopes, webhookUrl: undefined })
  started.push(env)
  return env
}

/** A GET with `token` (and `Polar-Version`): its status, JSON body and the headers checked here. */
async function get(url: string, token?: string, version?: string) {
  const response = await fetch(url, {
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(version ? { 'polar-version': version } : {}),
    },
  })
  return {
    status: response.status,
    body: (await response.json()) as unknown,
    authenticate: response.headers.get('www-authenticate'),
    version: response.headers.get('polar-version'),
  }
}

describe('tokens, scopes and versions', () => {
  it('are per server: a token sent to the other one is 401 invalid_token, and its data is not there', async () => {
    const sandbox = await server('polar_oat_sandbox')
    const production = await server('polar_oat_production')
    const checkout = await sandbox.polar.checkouts.create({ products: [PRO] })
    const elsewhere = `${production.emulator.url}/v1/checkouts/${checkout.id}`
    expect(await get(elsewhere, 'polar_oat_sandbox')).toEqual(
      expect.objectContaining({
        status: 401,
        body: {
          error: 'invalid_token',
          error_description:
            'The access token provided is expired, revoked, malformed, or invalid for other reasons.',
        },
      }),
    )
    expect((await get(elsewhere, 'polar_oat_production')).status).toBe(404)
    expect(await get(`${sandbox.emulator.url}/v1/orders/`)).toEqual(
      expect.objectContaining({
        status: 401,
        body: { error: 'Unauthorized', detail: 'Unauthorized' },
        authenticate: 'Bearer realm="polar"',
      }),
    )
  })

  it("answers 403 insufficient_scope naming the route's scopes; a read scope lets reads through", async () => {
    const { emulator, polar } = await server('polar_oat_narrow', ['checkouts:read'])
    await expect(polar.checkouts.create({ products: [PRO] })).rejects.toMatchObject({
      statusCode: 403,
      error: JSON.stringify({
        error: 'insufficient_scope',
        error_description:
          'The request requires higher privileges than provided by the access token.',
      }),
    })
    expect(await get(`${emulator.url}/v1/subscriptions/`, 'polar_oat_narrow')).toMatchObject({
      status: 403,
      authenticate: expect.stringContaining('scope="subscriptions:read subscriptions:write"'),
    })
    await expect(polar.checkouts.get(MISSING)).rejects.toMatchObject({ statusCode: 404 })
  })

  it('checks Polar-Version: absent or served passes (and is echoed), anything else is 404', async () => {
    const orders = `${(await server('polar_oat_v')).emulator.url}/v1/orders/`
    expect((await get(orders, 'polar_oat_v')).version).toBe('2026-04')
    expect((await get(orders, 'polar_oat_v', '2026-10')).version).toBe('2026-10')
    for (const version of ['2025-01', '2026-1', 'latest'])
      expect(await get(orders, 'polar_oat_v', version)).toEqual(
        expect.objectContaining({
          status: 404,
          body: { detail: 'Not Found' },
        }),
      )
  })
})
