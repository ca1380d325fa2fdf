import { logger } from '~/lib/logger.server'
import type { NotificationKind } from './kinds'
import { shouldSendEmail } from './preferences.server'

/** One email the product sends on its own (not an auth email). */
export interface NotificationEmail {
  to: string
  subject: string
  text: string
}

/** Where notification emails go. The default writes them to the log; swap in a mail API. */
export interface NotificationTransport {
  send(email: NotificationEmail): Promise<void>
}

const logTransport: NotificationTransport = {
  async send(email) {
    logger.info('notification email', { to: email.to, subject: email.subject })
  },
}

let transport: NotificationTransport = logTransport

/** Test hook: swap the transport and get the previous one back. */
export function setNotificationTransportForTests(next: NotificationTransport) {
  const previous = transport
  transport = next
  return previous
}

/**
 * The one path the product's own emails go through: it sends only when the user's
 * preference for this kind allows it. Returns whether the email was sent.
 */
export async function sendNotificationEmail(
  userId: string,
  kind: NotificationKind,
  email: NotificationEmail,
): Promise<boolean> {
  if (!(await shouldSendEmail(userId, kind))) return false
  await transport.send(email)
  return true
}
