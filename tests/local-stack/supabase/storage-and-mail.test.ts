import type { SupabaseClient } from '@supabase/supabase-js'
import nodemailer from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type SmtpInbox, startSmtpInbox } from './smtp'
import { raw, startTestStack, type TestStack } from './test-support'

// What Storage refuses, in its error shape (400 with the status in the body); uploads, public
// reads, listing and deletes are the product's (settings.test.ts, avatar). The SMTP listener's
// refusals, and the developer pages beyond what the browser tests read (mails.spec.ts opens
// /_inbox, their fixtures messages.json?to=).
let stack: TestStack
let smtp: SmtpInbox
let alice: { id: string; bucket: ReturnType<SupabaseClient['storage']['from']> }

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])
const png = { contentType: 'image/png' }

beforeAll(async () => {
  stack = await startTestStack()
  smtp = await startSmtpInbox({ database: stack.db, maxBytes: 64 * 1024 })
  const id = await stack.createUser('alice@example.com')
  const { supabase } = await stack.signIn('alice@example.com')
  alice = { id, bucket: supabase.storage.from('profile-images') }
})
afterAll(async () => {
  await smtp.close()
  await stack.close()
})

describe('storage refuses', () => {
  it.each<[string, () => Promise<{ error: unknown }>, Record<string, unknown>]>([
    [
      "another user's folder (RLS)",
      () => stack.client().storage.from('profile-images').upload('anyone/x.png', PNG, png),
      { statusCode: '403', message: 'new row violates row-level security policy' },
    ],
    [
      'a MIME type the bucket does not allow',
      () =>
        alice.bucket.upload(`${alice.id}/notes.txt`, new TextEncoder().encode('hello'), {
          contentType: 'text/plain',
        }),
      { statusCode: '415', message: 'mime type text/plain is not supported' },
    ],
    [
      "more than the bucket's size limit",
      () => alice.bucket.upload(`${alice.id}/huge.png`, new Uint8Array(2 * 1024 * 1024 + 1), png),
      { statusCode: '413', message: 'The object exceeded the maximum allowed size' },
    ],
    [
      'an existing path without x-upsert',
      async () => {
        await alice.bucket.upload(`${alice.id}/same.png`, PNG, png)
        return alice.bucket.upload(`${alice.id}/same.png`, PNG, png)
      },
      { statusCode: '409', message: 'The resource already exists' },
    ],
    [
      'an unknown bucket',
      () => stack.client().storage.from('nope').upload(`${alice.id}/a.png`, PNG, png),
      { statusCode: '404', message: 'Bucket not found' },
    ],
  ])('%s', async (_name, run, expected) => {
    const { error } = await run()
    expect(error).toMatchObject({ name: 'StorageApiError', status: 400, ...expected })
  })

  it('a public read of a deleted object: 400 with 404 in the body', async () => {
    const path = `${alice.id}/gone.png`
    await alice.bucket.upload(path, PNG, png)
    await alice.bucket.remove([path])
    const response = await fetch(alice.bucket.getPublicUrl(path).data.publicUrl)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ statusCode: '404', error: 'not_found' })
  })
})

it('the SMTP listener refuses, as a relay does, a message without From and one over the size limit', async () => {
  const transport = nodemailer.createTransport({ url: smtp.url })
  const before = smtp.received()
  await expect(
    transport.sendMail({
      envelope: { from: 'a@example.com', to: ['x@example.com'] },
      raw: 'Subject: no sender\r\n\r\nhello\r\n',
    }),
  ).rejects.toThrow(/From header is required/)
  const big = { from: 'a@example.com', to: 'x@example.com', text: 'x'.repeat(100 * 1024) }
  await expect(transport.sendMail(big)).rejects.toThrow(/552|size/i)
  expect(smtp.received()).toBe(before)
  expect(await stack.emulator.inbox.latestFor('x@example.com')).toBeUndefined()
})

describe('developer pages', () => {
  it('the inbox lists mail newest first, filters by recipient, and reloads on a new mail', async () => {
    const page = async () => (await raw(stack.emulator, '/_inbox')).text()
    const script = /<script>([^]*?)<\/script>/.exec(await page())
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
    const html = await page()
    expect(html.indexOf('second@example.com')).toBeLessThan(html.indexOf('first@example.com'))
    const filtered = await raw(stack.emulator, '/_inbox/messages.json?to=FIRST@example.com')
    expect(await filtered.json()).toMatchObject({
      messages: [{ to: 'first@example.com', otp: expect.stringMatching(/^\d{6}$/) }],
    })
  })

  it('/_users shows registered users, escaping what they typed, to no other website', async () => {
    const email = 'x<script>@example.com'
    await stack.admin().auth.admin.createUser({ email, password: 'hunter22' })
    const response = await raw(stack.emulator, '/_users', {
      headers: { origin: 'https://evil.example' },
    })
    expect(response.headers.get('access-control-allow-origin')).toBeNull()
    const users = await response.text()
    expect(users).toContain('x&lt;script&gt;@example.com')
    expect(users).not.toContain('x<script>')
  })
})
