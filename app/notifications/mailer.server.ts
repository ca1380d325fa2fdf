import nodemailer, { type Transporter } from 'nodemailer'

import { getEnv } from '~/env.server'

export interface OutgoingMail {
  to: string
  subject: string
  text: string
  html: string
  replyTo?: string
}

/** Where mails go: SMTP in every environment (locally, the local stack's inbox). */
export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>
}

let smtp: { url: string; transporter: Transporter } | undefined

/** SMTP_URL's transport, timing out well inside the lease: a hung server is a failed attempt. */
export function smtpTransport(): MailTransport {
  const env = getEnv()
  if (smtp?.url !== env.SMTP_URL) {
    smtp?.transporter.close()
    smtp = {
      url: env.SMTP_URL,
      transporter: nodemailer.createTransport({
        url: env.SMTP_URL,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 20_000,
      }),
    }
  }
  const { transporter } = smtp
  return {
    async send(mail) {
      await transporter.sendMail({ from: env.MAIL_FROM, ...mail })
    },
  }
}
