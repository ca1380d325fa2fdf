import type { MailKind } from '../../app/notifications/kinds'
import type { MailTransport, OutgoingMail } from '../../app/notifications/mailer.server'
import { type ReceiptPayment, renderMail } from '../../app/notifications/render'

/** A transport that keeps what it is given: for tests that deliver the outbox in-process. */
export function mailCatcher() {
  const sent: OutgoingMail[] = []
  const transport: MailTransport = {
    async send(mail) {
      sent.push(mail)
    },
  }
  return { sent, transport, to: (email: string) => sent.filter((mail) => mail.to === email) }
}

/** The subject the app gives a mail of `kind`: tests take mail copy from the app. */
export function mailSubject(
  kind: MailKind,
  data: Record<string, unknown> = {},
  payment?: ReceiptPayment,
): string {
  const mail = renderMail(
    { kind, to: 'someone@example.com', data },
    { siteUrl: 'http://x', payment },
  )
  if (!mail) throw new Error(`no ${kind} mail for ${JSON.stringify(data)}`)
  return mail.subject
}

/** A receipt's payment with only what its subject reads. */
export const receiptOf = (amount: number, currency = 'usd'): ReceiptPayment => ({
  amount,
  currency,
  description: null,
  invoice_url: null,
  created_at: new Date().toISOString(),
})
