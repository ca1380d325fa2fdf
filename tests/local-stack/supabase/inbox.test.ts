import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { raw, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('developer pages and mail inbox', () => {
  it('lists mail newest first in HTML and JSON, filters by recipient, clears, and reloads its page on a new mail', async () => {
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
    await stack.client().auth.signUp({ email: 'first@example.com', password: 'hunter22' })
    await stack.client().auth.signUp({ email: 'second@example.com', password: 'hunter22' })
    await poll()
    expect(reloads).toBe(1)

    const all = await stack.emulator.inbox.list()
    expect(all.map((mail) => mail.to)).toEqual(['second@example.com', 'first@example.com'])
    const page = await (await raw(stack.emulator, '/_inbox')).text()
    expect(page.indexOf('second@example.com')).toBeLessThan(page.indexOf('first@example.com'))
    expect(page).toContain(`<a href="${all[0].link!.replace(/&/g, '&amp;')}">`)

    const filtered = await raw(stack.emulator, '/_inbox/messages.json?to=FIRST@example.com')
    const { messages } = (await filtered.json()) as { messages: { to: string; otp: string }[] }
    expect(messages).toMatchObject([{ to: 'first@example.com' }])
    expect(messages[0].otp).toMatch(/^\d{6}$/)

    expect((await raw(stack.emulator, '/_inbox', { method: 'DELETE' })).status).toBe(204)
    expect(await stack.emulator.inbox.list()).toEqual([])
  })

  it('shows registered users, escaping what they typed, to no other website', async () => {
    await stack.createUser('visible@example.com')
    await stack
      .admin()
      .auth.admin.createUser({ email: 'x<script>@example.com', password: 'hunter22' })
    const response = await raw(stack.emulator, '/_users', {
      headers: { origin: 'https://evil.example' },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    const users = await response.text()
    expect(users).toContain('visible@example.com')
    expect(users).not.toContain('x<script>')
  })
})
