import { afterAll, beforeAll, expect, it } from 'vitest'

import { raw, startTestStack, type TestStack } from './test-support'

// The developer pages beyond what the browser tests use (mails.spec.ts reads /_inbox, their
// fixtures messages.json?to=): the inbox's order, filter and reload, the users page's escaping.
let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

it('lists mail newest first, filters by recipient, and reloads its page on a new mail', async () => {
  const script = /<script>([^]*?)<\/script>/.exec(
    await (await raw(stack.emulator, '/_inbox')).text(),
  )
  let poll: () => Promise<void> = async () => {}
  let reloads = 0
  new Function('setInterval', 'fetch', 'location', script![1])(
    (callback: () => Promise<void>) => (poll = callback),
    (path: string) => raw(stack.emulator, path),
    { reload: () => (reloads += 1) },
  )
  for (const email of ['first@example.com', 'second@example.com'])
    await stack.client().auth.signUp({ email, password: 'hunter22' })
  await poll()
  expect(reloads).toBe(1)
  const page = await (await raw(stack.emulator, '/_inbox')).text()
  expect(page.indexOf('second@example.com')).toBeLessThan(page.indexOf('first@example.com'))
  const filtered = await raw(stack.emulator, '/_inbox/messages.json?to=FIRST@example.com')
  const { messages } = (await filtered.json()) as { messages: { to: string; otp: string }[] }
  expect(messages).toMatchObject([
    { to: 'first@example.com', otp: expect.stringMatching(/^\d{6}$/) },
  ])
})

it('shows registered users, escaping what they typed, to no other website', async () => {
  await stack
    .admin()
    .auth.admin.createUser({ email: 'x<script>@example.com', password: 'hunter22' })
  const response = await raw(stack.emulator, '/_users', {
    headers: { origin: 'https://evil.example' },
  })
  expect(response.headers.get('access-control-allow-origin')).toBeNull()
  const users = await response.text()
  expect(users).toContain('x&lt;script&gt;@example.com')
  expect(users).not.toContain('x<script>')
})
