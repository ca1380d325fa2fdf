import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { updateCustomerEmail } from '../../app/billing/customer-email.server'
import { resetEnvForTests } from '../../app/env.server'
import {
  deliverDueMails,
  startMailDelivery,
  stopMailDelivery,
} from '../../app/notifications/delivery.server'
import { type MailTransport, smtpTransport } from '../../app/notifications/mailer.server'
import { startSmtpInbox } from '../local-stack/supabase/smtp'
import { adminClient, createSignedInUser, rowsWhere, testAppForFile } from './harness'
import { mailSubject, receiptOf } from './mail-support'
import { invoiceObject, postStripeEvent, stripeEvent } from './stripe-fixtures'

// Notification mails end to end: webhook, outbox, nodemailer over SMTP, the emulator's inbox.
const app = testAppForFile()

beforeAll(() => {
  // Retries after 200 ms, 400 ms, …: the outage test waits for one or two of them.
  process.env.MAIL_RETRY_BASE_MS = '200'
  process.env.MAIL_POLL_INTERVAL_MS = '100'
  resetEnvForTests()
})
afterEach(() => stopMailDelivery())
afterAll(() => {
  delete process.env.MAIL_RETRY_BASE_MS
  delete process.env.MAIL_POLL_INTERVAL_MS
})

const outboxOf = (user_id: string) =>
  rowsWhere(
    app,
    'notification_outbox',
    { user_id },
    {
      select: 'kind, status, attempts, last_error, to_address',
    },
  )

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 10_000) {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

function paidInvoiceEvent(userId: string, amount = 1900) {
  return stripeEvent(
    'invoice.payment_succeeded',
    invoiceObject({ subscription: `sub_mail_${userId.slice(0, 8)}`, userId, amount }),
  )
}

describe('the mail server is down', () => {
  it('the webhook still answers 200 at once; the receipt is retried and lands once it is back', async () => {
    const user = await createSignedInUser(app)
    const port = app.stack.smtp.port
    await app.stack.smtp.close()
    startMailDelivery({ customerEmail: updateCustomerEmail })

    const started = performance.now()
    const answer = await postStripeEvent(app.url, paidInvoiceEvent(user.id))
    const elapsed = performance.now() - started
    expect(answer).toEqual({ status: 200, body: { received: true } })
    expect(elapsed).toBeLessThan(1500)

    // Attempted and failed (connection refused), kept pending for a retry: nothing lost.
    const [failed] = await waitFor('a failed attempt', async () => {
      const rows = await outboxOf(user.id)
      return rows.length === 1 && Number(rows[0].attempts) >= 1 && rows[0].last_error
        ? rows
        : undefined
    })
    expect(failed).toMatchObject({ kind: 'payment_receipt', status: 'pending' })
    expect(failed.last_error).toMatch(/ECONNREFUSED|connect/i)
    expect(await app.stack.supabase.inbox.latestFor(user.email)).toBeUndefined()

    const smtp = await startSmtpInbox({ database: app.stack.database, port })
    try {
      const mail = await waitFor('the receipt in the inbox', () =>
        app.stack.supabase.inbox.latestFor(user.email),
      )
      expect(mail).toMatchObject({ kind: 'smtp', subject: expect.stringContaining('$19.00') })
      expect(mail.text).toContain(`${app.url}/dashboard/settings/billing`)
      await waitFor(
        'the row marked sent',
        async () => (await outboxOf(user.id))[0].status === 'sent',
      )
      expect(smtp.received()).toBe(1)
    } finally {
      await stopMailDelivery()
      await smtp.close()
      // The rest of the file uses a listener again, on the port SMTP_URL names.
      app.stack.smtp = await startSmtpInbox({ database: app.stack.database, port })
    }
  })

  it('after MAX_ATTEMPTS failures a mail is dead, visible in the outbox, and no longer tried', async () => {
    const user = await createSignedInUser(app)
    await adminClient(app).rpc('enqueue_notification', {
      p_user_id: user.id,
      p_kind: 'password_changed',
      p_data: {},
    })
    await adminClient(app)
      .from('notification_outbox')
      .update({ attempts: 11 })
      .eq('user_id', user.id)
    const refusing: MailTransport = {
      send: () => Promise.reject(new Error('421 4.7.0 Try again later')),
    }
    expect(await deliverDueMails(refusing)).toMatchObject({ dead: 1, sent: 0 })
    expect(await outboxOf(user.id)).toMatchObject([
      { status: 'dead', attempts: 12, last_error: '421 4.7.0 Try again later' },
    ])
    expect(await deliverDueMails(refusing)).toMatchObject({ dead: 0, failed: 0 })
  })
})

it('two deliverers at once: each mail is sent exactly once', async () => {
  const users = await Promise.all(Array.from({ length: 8 }, () => createSignedInUser(app)))
  for (const user of users) {
    expect((await postStripeEvent(app.url, paidInvoiceEvent(user.id, 2900))).status).toBe(200)
  }
  // Only these users' mails count: one an earlier test left pending is no concern here.
  const ours = new Set(users.map((user) => user.email))
  const counted = (counter: { n: number }): MailTransport => {
    const smtp = smtpTransport()
    return {
      async send(mail) {
        if (ours.has(mail.to)) counter.n++
        await smtp.send(mail)
      },
    }
  }
  const a = { n: 0 }
  const b = { n: 0 }
  await Promise.all([deliverDueMails(counted(a)), deliverDueMails(counted(b))])
  expect(a.n + b.n).toBe(8)
  for (const user of users) {
    const inbox = (await app.stack.supabase.inbox.list()).filter((m) => m.to === user.email)
    expect(inbox.map((mail) => mail.subject)).toEqual([
      mailSubject('payment_receipt', {}, receiptOf(2900)),
    ])
    expect(await outboxOf(user.id)).toMatchObject([{ status: 'sent', attempts: 1 }])
  }
})
