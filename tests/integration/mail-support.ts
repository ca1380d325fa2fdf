import type { MailTransport, OutgoingMail } from '../../app/notifications/mailer.server'

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
