import http from 'node:http'
import path from 'node:path'

import { createServer, loadConfigFromFile, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { allowedHosts, isServerOnlyPath } from '../../vite.config'
import { PROJECT_ROOT } from '../local-stack/database'

/** The development server: what it serves to a browser, and to which host names. */
describe('allowedHosts (DEV_ALLOWED_HOSTS)', () => {
  it('reads comma-separated host names for a tunnel, and drops anything else', () => {
    expect(allowedHosts(' abc.trycloudflare.com, .ngrok-free.app ,,https://x.y/ ')).toEqual([
      'abc.trycloudflare.com',
      '.ngrok-free.app',
    ])
    expect(allowedHosts(undefined)).toEqual([])
  })
})

describe('the dev server port (LOCAL_APP_PORT)', () => {
  it('is 5173 unless LOCAL_APP_PORT moves it', async () => {
    const port = async () =>
      (
        await loadConfigFromFile(
          { command: 'serve', mode: 'development' },
          path.join(PROJECT_ROOT, 'vite.config.ts'),
        )
      )?.config.server?.port
    expect(await port()).toBe(5173)
    process.env.LOCAL_APP_PORT = '5300'
    try {
      expect(await port()).toBe(5300)
    } finally {
      delete process.env.LOCAL_APP_PORT
    }
  })
})

describe('server-only modules', () => {
  it.each([
    ['/app/env.server.ts', true],
    ['/app/env.server.ts?raw', true],
    ['/app/lib/server/http.server.ts?import&t=1', true],
    ['/@fs/work/app/env.server.ts', true],
    ['/app/lib/%68ttp.server.ts', true],
    ['/.env', true],
    ['/.env.production', true],
    ['/app/root.tsx', false],
    ['/app/lib/pages/format.ts', false],
    ['/app/routes/api.checkout.ts', false],
    ['/@vite/client', false],
  ])('%s is server-only: %s', (url, refused) => {
    expect(isServerOnlyPath(url)).toBe(refused)
  })
})

describe('the dev server itself', () => {
  let server: ViteDevServer
  let origin: string
  beforeAll(async () => {
    server = await createServer({
      configFile: path.join(PROJECT_ROOT, 'vite.config.ts'),
      root: PROJECT_ROOT,
      server: { port: 0, strictPort: false, host: '127.0.0.1', hmr: false },
      logLevel: 'silent',
    })
    await server.listen()
    const address = server.httpServer?.address()
    origin = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  }, 30_000)
  afterAll(() => server?.close())

  it('never sends the source of a .server module, however it is asked for', async () => {
    for (const url of [
      '/app/env.server.ts',
      '/app/env.server.ts?raw',
      '/app/lib/server/logger.server.ts?import',
    ]) {
      const response = await fetch(`${origin}${url}`)
      expect(response.status).toBe(404)
      expect(await response.text()).not.toContain('SUPABASE_SERVICE_ROLE_KEY')
    }
    const plain = await fetch(`${origin}/app/lib/pages/format.ts`)
    expect(plain.status).toBe(200)
  })

  it('runs the request policy before the app: a cross-site post gets the 403 page', async () => {
    const refused = await fetch(`${origin}/contact`, {
      method: 'POST',
      headers: { Origin: 'https://evil.example', 'Content-Type': 'text/plain' },
      body: 'x',
    })
    expect(refused.status).toBe(403)
    expect(await refused.text()).toContain('Request refused')
    const api = await fetch(`${origin}/api/contact`, {
      method: 'POST',
      headers: { 'Sec-Fetch-Site': 'cross-site' },
    })
    expect(api.status).toBe(403)
    expect(await api.json()).toEqual({
      success: false,
      message: 'Cross-site requests are not allowed',
    })
    // Nothing is refused for a request that says it comes from us (or says nothing).
    const own = await fetch(`${origin}/contact`, { method: 'POST', body: 'x' })
    expect(own.status).not.toBe(403)
  })

  it("sets the security headers on the app's answers, not on Vite's modules", async () => {
    // A resource route of the app (its answer is not a page, so no cache may keep it).
    const app = await fetch(`${origin}/healthz`)
    expect(app.headers.get('X-Content-Type-Options')).toBe('nosniff')
    expect(app.headers.get('X-Frame-Options')).toBe('DENY')
    expect(app.headers.get('Cache-Control')).toBe('no-store')
    const module = await fetch(`${origin}/app/lib/pages/format.ts`)
    expect(module.status).toBe(200)
    expect(module.headers.get('Content-Security-Policy')).toBeNull()
  })

  it('refuses a Host it was not told about (a tunnel must be listed)', async () => {
    // node:http, because fetch never sends a Host of the caller's choosing.
    const status = await new Promise<number | undefined>((resolve, reject) => {
      http
        .get(
          `${origin}/app/lib/pages/format.ts`,
          { headers: { host: 'attacker.example' } },
          (res) => {
            res.resume()
            resolve(res.statusCode)
          },
        )
        .on('error', reject)
    })
    expect(status).toBe(403)
  })
})
