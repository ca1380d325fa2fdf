import type { AddressInfo } from 'node:net'

import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

import type { Queryable } from '../database'
import { storeReceivedMail } from './mail'

export interface SmtpInboxOptions {
  database: Queryable
  /** 0 or undefined = a free port; development uses 54425. */
  port?: number
  /** Largest message accepted (SIZE extension), default 10 MB as many providers. */
  maxBytes?: number
}

export type SmtpInbox = Awaited<ReturnType<typeof startSmtpInbox>>

/** An SMTP listener on loopback whose mails land in the inbox (README.md, "Pages"). */
export async function startSmtpInbox(options: SmtpInboxOptions) {
  let count = 0
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    size: maxBytes,
    logger: false,
    banner: 'local inbox',
    onAuth(_auth, _session, callback) {
      callback(null, { user: 'local' })
    },
    onRcptTo(address, _session, callback) {
      if (!/^[^\s@]+@[^\s@]+$/.test(address.address))
        return callback(Object.assign(new Error('Bad recipient address'), { responseCode: 553 }))
      callback()
    },
    onData(stream, session, callback) {
      void (async () => {
        try {
          const parsed = await simpleParser(stream)
          if ((stream as { sizeExceeded?: boolean }).sizeExceeded)
            throw Object.assign(new Error('Message too large'), { responseCode: 552 })
          if (!parsed.from?.value.length)
            throw Object.assign(new Error('A From header is required'), { responseCode: 550 })
          for (const recipient of session.envelope.rcptTo) {
            await storeReceivedMail(options.database, {
              to: recipient.address,
              subject: parsed.subject ?? '(no subject)',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : '',
            })
          }
          count++
          callback()
        } catch (error) {
          callback(error as Error)
        }
      })()
    },
  })
  // A client that drops its connection mid-session (an instance killed while sending: the
  // chaos soak) is that client's loss, as at a real relay: the server keeps listening.
  server.on('error', () => {})
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.server.off('error', reject)
      resolve()
    })
  })
  const port = (server.server.address() as AddressInfo).port
  return {
    /** smtp://127.0.0.1:<port>: what SMTP_URL is set to. */
    url: `smtp://127.0.0.1:${port}`,
    port,
    received: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
