import { afterEach, describe, expect, it, vi } from 'vitest'

const env = {
  NODE_ENV: 'development' as 'development' | 'production' | 'test',
  POLAR_SANDBOX: true,
  POLAR_API_URL: undefined as string | undefined,
  POLAR_ACCESS_TOKEN: 'polar_oat_unit_test',
}
vi.mock('~/env.server', () => ({ getEnv: () => env }))

const { getPolar } = await import('./client.server')

/** The origin the client of `purpose` sends its requests to. */
async function originOf(purpose: 'api' | 'portal') {
  const fetchSpy = vi
    .spyOn(globalThis, 'fetch')
    .mockResolvedValue(Response.json({ error: 'x', detail: 'x' }, { status: 404 }))
  await getPolar(purpose)
    .checkouts.get('00000000-0000-4000-8000-000000000000')
    .catch(() => undefined)
  const [url] = fetchSpy.mock.calls[0] ?? []
  return new URL(String(url)).origin
}

afterEach(() => {
  vi.restoreAllMocks()
  Object.assign(env, { NODE_ENV: 'development', POLAR_SANDBOX: true, POLAR_API_URL: undefined })
})

describe('getPolar', () => {
  it('checkouts and invoices use the sandbox unless POLAR_SANDBOX is false', async () => {
    expect(await originOf('api')).toBe('https://sandbox-api.polar.sh')
    env.POLAR_SANDBOX = false
    expect(await originOf('api')).toBe('https://api.polar.sh')
  })

  it('the portal uses production only when NODE_ENV is production', async () => {
    expect(await originOf('portal')).toBe('https://sandbox-api.polar.sh')
    env.NODE_ENV = 'test'
    expect(await originOf('portal')).toBe('https://sandbox-api.polar.sh')
    env.NODE_ENV = 'production'
    expect(await originOf('portal')).toBe('https://api.polar.sh')
  })

  it('POLAR_API_URL (the local emulator) wins over both', async () => {
    env.POLAR_API_URL = 'http://127.0.0.1:12112'
    env.NODE_ENV = 'production'
    env.POLAR_SANDBOX = false
    expect(await originOf('api')).toBe('http://127.0.0.1:12112')
    expect(await originOf('portal')).toBe('http://127.0.0.1:12112')
  })

  it('sends the access token', async () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockResolvedValue(Response.json({}))
    await getPolar('api')
      .checkouts.get('00000000-0000-4000-8000-000000000000')
      .catch(() => undefined)
    const init = fetchSpy.mock.calls[0]?.[1]
    expect(new Headers(init?.headers).get('authorization')).toBe('Bearer polar_oat_unit_test')
  })
})
