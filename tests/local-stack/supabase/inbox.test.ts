import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { raw, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('the server', () => {
  it('listens on loopback and is reachable as localhost and 127.0.0.1', async () => {
    expect(stack.emulator.url).toBe(`http://localhost:${stack.emulator.port}`)
    const viaIp = await fetch(`http://127.0.0.1:${stack.emulator.port}/auth/v1/health`)
    expect(viaIp.status).toBe(200)
  })

  it('answers CORS preflights for browser clients', async () => {
    const response = await raw(stack.emulator, '/auth/v1/token?grant_type=password', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'apikey, authorization, x-client-info, x-supabase-api-version, content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(response.headers.get('access-control-allow-headers')).toContain('x-supabase-api-version')
  })

  it('never lets another website read the inbox or the user list', async () => {
    for (const path of ['/_inbox', '/_inbox/messages.json', '/_users']) {
      const response = await raw(stack.emulator, path, {
        headers: { origin: 'https://evil.example' },
      })
      expect(response.headers.get('access-control-allow-origin')).toBeNull()
      const preflight = await raw(stack.emulator, path, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      })
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  it('answers 404 JSON for unknown paths', async () => {
    const response = await raw(stack.emulator, '/nowhere')
    expect(response.status).toBe(404)
  })
})

describe('developer pages and mail inbox', () => {
  it('reloads the inbox page when a mail arrives', async () => {
    const html = await (await raw(stack.emulator, '/_inbox')).text()
    const script = /<script>([^]*?)<\/script>/.exec(html)![1]
    let poll: () => Promise<void> = async () => {}
    let reloads = 0
    const run = new Function('setInterval', 'fetch', 'location', script)
    run(
      (callback: () => Promise<void>) => (poll = callback),
      (path: string) => raw(stack.emulator, path),
      { reload: () => (reloads += 1) },
    )
    await poll()
    expect(reloads).toBe(0)
    await stack.client().auth.signUp({ email: 'arrives@example.com', password: 'hunter22' })
    await poll()
    expect(reloads).toBe(1)
    await stack.emulator.inbox.clear()
  })

  it('lists mail newest first in HTML and JSON, filters by recipient, and clears', async () => {
    await stack.client().auth.signUp({ email: 'first@example.com', password: 'hunter22' })
    await stack.client().auth.signUp({ email: 'second@example.com', password: 'hunter22' })

    const all = await stack.emulator.inbox.list()
    expect(all.map((mail) => mail.to)).toEqual(['second@example.com', 'first@example.com'])

    const page = await raw(stack.emulator, '/_inbox')
    expect(page.headers.get('content-type')).toContain('text/html')
    const html = await page.text()
    expect(html.indexOf('second@example.com')).toBeLessThan(html.indexOf('first@example.com'))
    const link = all[0].link!.replace(/&/g, '&amp;')
    expect(html).toContain(`<a href="${link}">`)

    const filtered = await raw(stack.emulator, '/_inbox/messages.json?to=FIRST@example.com')
    const body = (await filtered.json()) as {
      messages: { to: string; subject: string; link: string; otp: string }[]
    }
    expect(body.messages).toHaveLength(1)
    expect(body.messages[0]).toMatchObject({
      to: 'first@example.com',
      subject: 'Confirm your email address',
    })
    expect(body.messages[0].otp).toMatch(/^\d{6}$/)

    const cleared = await raw(stack.emulator, '/_inbox', { method: 'DELETE' })
    expect(cleared.status).toBe(204)
    expect(await stack.emulator.inbox.list()).toEqual([])
  })

  it('shows registered users and links both pages from the index', async () => {
    await stack.createUser('visible@example.com')
    const users = await (await raw(stack.emulator, '/_users')).text()
    expect(users).toContain('visible@example.com')
    expect(users).toContain('<th scope="col">Confirmed</th>')
    const index = await (await raw(stack.emulator, '/')).text()
    expect(index).toContain('href="/_inbox"')
    expect(index).toContain('href="/_users"')
  })

  it('escapes user-controlled text', async () => {
    await stack
      .admin()
      .auth.admin.createUser({ email: 'x<script>@example.com', password: 'hunter22' })
    const users = await (await raw(stack.emulator, '/_users')).text()
    expect(users).not.toContain('x<script>')
  })

  it('counts auth requests by path', async () => {
    const before = stack.emulator.countsByPath()['/token'] ?? 0
    await stack
      .client()
      .auth.signInWithPassword({ email: 'visible@example.com', password: 'correct-horse-battery' })
    expect(stack.emulator.countsByPath()['/token']).toBe(before + 1)
  })
})
