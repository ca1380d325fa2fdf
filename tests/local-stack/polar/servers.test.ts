import { PolarClientError } from '@polar-sh/sdk'
import { createPolar } from '@polar-sh/sdk/2026-10'
import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { webhookUrlProblem } from './auth'
import { type PolarEmulator, startPolarEmulator } from './index'

const PRO = catalogPlan(LOCAL_CATALOG, 'pro').polar.productId
const started: PolarEmulator[] = []

afterEach(async () => {
  while (started.length) await started.pop()!.close()
})

async function server(environment: 'sandbox' | 'production', token: string, scopes?: string[]) {
  const emulator = await startPolarEmulator({
    catalog: LOCAL_CATALOG,
    environment,
    accessToken: token,
    accessTokenScopes: scopes,
    webhookSecret: `polar_whs_${environment}`,
    invoiceDelayMs: 0,
  })
  started.push(emulator)
  return emulator
}

function status(error: unknown) {
  return error instanceof PolarClientError ? error.statusCode : undefined
}

describe('sandbox and production', () => {
  it('are two servers with their own tokens and data: a token sent to the other one is refused', async () => {
    const sandbox = await server('sandbox', 'polar_oat_sandbox')
    const production = await server('production', 'polar_oat_production')
    const inSandbox = createPolar({ accessToken: 'polar_oat_sandbox', baseUrl: sandbox.url })
    const checkout = await inSandbox.checkouts.create({ products: [PRO] })

    // The sandbox token at production (what a production build with a sandbox token does).
    const misdirected = createPolar({ accessToken: 'polar_oat_sandbox', baseUrl: production.url })
    const error = await misdirected.checkouts.get(checkout.id).catch((e: unknown) => e)
    expect(status(error)).toBe(401)
    expect(JSON.parse((error as PolarClientError).error as string)).toMatchObject({
      error: 'invalid_token',
    })

    // Production's own token does not see the sandbox's objects either.
    const inProduction = createPolar({
      accessToken: 'polar_oat_production',
      baseUrl: production.url,
    })
    const missing = await inProduction.checkouts.get(checkout.id).catch((e: unknown) => e)
    expect(status(missing)).toBe(404)
    expect(production.environment).toBe('production')
    expect(production.state.checkouts.size).toBe(0)
  })

  it("checks the token's scopes: 403 insufficient_scope naming what the route needs", async () => {
    const emulator = await server('sandbox', 'polar_oat_narrow', ['checkouts:read'])
    const polar = createPolar({ accessToken: 'polar_oat_narrow', baseUrl: emulator.url })
    const error = await polar.checkouts.create({ products: [PRO] }).catch((e: unknown) => e)
    expect(status(error)).toBe(403)
    expect(JSON.parse((error as PolarClientError).error as string)).toEqual({
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
    // A read scope lets reads through.
    const list = await fetch(`${emulator.url}/v1/checkouts/00000000-0000-4000-8000-000000000000`, {
      headers: { authorization: 'Bearer polar_oat_narrow' },
    })
    expect(list.status).toBe(404)
  })

  it("gives the product's token exactly the scopes docs/polar.md lists", async () => {
    const emulator = await server('sandbox', 'polar_oat_product')
    const call = (method: string, path: string) =>
      fetch(`${emulator.url}${path}`, {
        method,
        headers: { authorization: 'Bearer polar_oat_product', 'content-type': 'application/json' },
        body: method === 'GET' ? undefined : '{}',
      }).then((r) => r.status)
    expect(await call('GET', '/v1/products/')).toBe(403)
    expect(await call('GET', '/v1/subscriptions/')).toBe(200)
    expect(await call('GET', '/v1/customers/')).toBe(200)
    expect(await call('GET', '/v1/orders/')).toBe(200)
    expect(await call('POST', '/v1/customer-sessions/')).toBe(422)
  })

  it('checks Polar-Version: absent or served passes (and is echoed), anything else is 404', async () => {
    const emulator = await server('sandbox', 'polar_oat_v')
    const get = (version?: string) =>
      fetch(`${emulator.url}/v1/orders/`, {
        headers: {
          authorization: 'Bearer polar_oat_v',
          ...(version ? { 'polar-version': version } : {}),
        },
      })
    const none = await get()
    expect(none.status).toBe(200)
    expect(none.headers.get('polar-version')).toBe('2026-04')
    const sdk = await get('2026-10')
    expect(sdk.headers.get('polar-version')).toBe('2026-10')
    for (const version of ['2025-01', '2026-1', 'latest']) {
      const refused = await get(version)
      expect(refused.status).toBe(404)
      expect(await refused.json()).toEqual({ detail: 'Not Found' })
    }
  })
})

describe('webhook endpoint URLs', () => {
  it('must be https on a public host outside the local mode', () => {
    expect(webhookUrlProblem('https://app.example.com/api/webhooks/polar', false)).toBeNull()
    for (const url of [
      'http://app.example.com/api/webhooks/polar',
      'https://localhost/api/webhooks/polar',
      'https://127.0.0.1/x',
      'https://10.0.0.5/x',
      'https://192.168.1.2/x',
      'https://[::1]/x',
      'not a url',
    ]) {
      expect(webhookUrlProblem(url, false), url).not.toBeNull()
    }
    expect(webhookUrlProblem('http://127.0.0.1:5173/api/webhooks/polar', true)).toBeNull()
  })

  it('are refused by the emulator unless it runs in local mode', async () => {
    await expect(
      startPolarEmulator({
        catalog: LOCAL_CATALOG,
        webhookSecret: 's',
        webhookUrl: 'http://localhost:5173/api/webhooks/polar',
      }),
    ).rejects.toThrow(/Webhook URL refused/)
    const emulator = await server('sandbox', 'polar_oat_x')
    expect(() => emulator.setWebhookUrl('https://127.0.0.1:9/x')).toThrow(/localhost or private/)
    expect(emulator.endpoint().url).toBeNull()
  })
})
