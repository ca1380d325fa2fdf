import nodemailer from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type SmtpInbox, startSmtpInbox } from './smtp'
import { startTestStack, type TestStack } from './test-support'

let stack: TestStack
let smtp: SmtpInbox
beforeAll(async () => {
  stack = await startTestStack()
  smtp = await startSmtpInbox({ database: stack.db, maxBytes: 64 * 1024 })
})
afterAll(async () => {
  await smtp.close()
  await stack.close()
})

const transport = () => nodemailer.createTransport({ url: smtp.url })

describe('the SMTP listener puts mail into the inbox', () => {
  it('refuses, as a provider’s relay does, a message without From and one over the size limit', async () => {
    const before = smtp.received()
    await expect(
      transport().sendMail({
        envelope: { from: 'a@example.com', to: ['x@example.com'] },
        raw: 'Subject: no sender\r\n\r\nhello\r\n',
      }),
    ).rejects.toThrow(/From header is required/)
    await expect(
      transport().sendMail({
        from: 'a@example.com',
        to: 'x@example.com',
        subject: 'big',
        text: 'x'.repeat(100 * 1024),
      }),
    ).rejects.toThrow(/552|size/i)
    expect(smtp.received()).toBe(before)
    expect(await stack.emulator.inbox.latestFor('x@example.com')).toBeUndefined()
  })
})
