import nodemailer from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type SmtpInbox, startSmtpInbox } from './smtp'
import { raw, startTestStack, type TestStack } from './test-support'

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
  it('stores each recipient’s copy beside the auth mails, text and HTML', async () => {
    await transport().sendMail({
      from: 'Product <no-reply@example.com>',
      to: ['one@example.com', 'two@example.com'],
      subject: 'Your receipt',
      text: 'Thank you.\n\nBilling history: http://localhost:5173/dashboard/settings/billing',
      html: '<!doctype html><html><body><p>Thank you.</p><p><a href="http://localhost:5173/dashboard/settings/billing">Billing history</a></p></body></html>',
    })
    const [mail] = await stack.emulator.inbox
      .list()
      .then((all) => all.filter((m) => m.to === 'one@example.com'))
    expect(mail).toMatchObject({ subject: 'Your receipt', kind: 'smtp', link: null, otp: null })
    expect(mail.text).toContain('Billing history: http://localhost:5173/dashboard/settings/billing')
    expect(mail.html).toBe(
      '<p>Thank you.</p><p><a href="http://localhost:5173/dashboard/settings/billing">Billing history</a></p>',
    )
    expect(await stack.emulator.inbox.latestFor('two@example.com')).toMatchObject({
      subject: 'Your receipt',
    })
    const page = await (await raw(stack.emulator, '/_inbox')).text()
    expect(page).toContain('<h2 id="mail-')
    expect(page).toContain('Billing history</a>')
  })

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
