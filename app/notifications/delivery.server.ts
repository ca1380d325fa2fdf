import { getEnv } from '~/env.server'
import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { logger } from '~/lib/server/logger.server'

import { type MailTransport, smtpTransport } from './mailer.server'
import {
  type ClaimedMail,
  claimMails,
  enqueueAttemptsNotice,
  enqueueSecurityNotice,
  finishMail,
  type GuessedFlow,
} from './outbox.server'
import { type ReceiptPayment, renderMail } from './render'

/**
 * Delivery of the notification outbox (docs/notifications.md). Each app instance runs one
 * deliverer in the background: it claims due mails (the database hands each row to one
 * claimer only), renders them, sends them over SMTP and reports the outcome. A failed send
 * is tried again later, each time twice as late (MAIL_RETRY_BASE_MS, at most 6 hours),
 * MAX_ATTEMPTS times in all; then the row is `dead`, kept and logged. Nothing here runs in a
 * request: a webhook only writes the outbox row (in its own transaction) and wakes the
 * deliverer, so a mail server that is down or slow never fails or slows a webhook.
 */
export const MAX_ATTEMPTS = 12
const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000
/** How long a claimed mail is ours: well above the SMTP timeouts (mailer.server.ts). */
const LEASE_SECONDS = 120
const BATCH = 10

/** When to try again after attempt `attempt` failed; null after the last one (dead). */
export function nextAttemptAt(attempt: number, now: number, baseMs: number): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null
  return new Date(now + Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS))
}

export interface DeliveryReport {
  sent: number
  skipped: number
  failed: number
  dead: number
}

async function receiptPayment(mail: ClaimedMail): Promise<ReceiptPayment | null> {
  const id = mail.data.payment_id
  if (typeof id !== 'string') return null
  const { data, error } = await database()
    .from('payment_history')
    .select('amount, currency, description, invoice_url, created_at')
    .eq('id', id)
    .maybeSingle<ReceiptPayment>()
  if (error) throw databaseError('receipt payment read', error)
  return data
}

async function deliverOne(mail: ClaimedMail, transport: MailTransport, report: DeliveryReport) {
  const fields = { id: mail.id, kind: mail.kind, attempt: mail.attempts }
  if (!mail.wanted) {
    await finishMail(mail, 'skipped')
    report.skipped++
    logger.info(fields, 'notification skipped: preference off')
    return
  }
  const payment = mail.kind === 'payment_receipt' ? await receiptPayment(mail) : undefined
  const rendered = renderMail(
    { kind: mail.kind, to: mail.to_address, data: mail.data },
    { siteUrl: getEnv().SITE_URL, payment },
  )
  if (!rendered) {
    await finishMail(mail, 'skipped')
    report.skipped++
    logger.info(fields, 'notification skipped: nothing to send any more')
    return
  }
  try {
    await transport.send({ to: mail.to_address, ...rendered })
  } catch (error) {
    const retryAt = nextAttemptAt(mail.attempts, Date.now(), getEnv().MAIL_RETRY_BASE_MS)
    const message = error instanceof Error ? error.message : String(error)
    await finishMail(mail, 'failed', { error: message, retryAt })
    if (retryAt) {
      report.failed++
      logger.warn({ ...fields, retryAt, err: error }, 'notification not sent, will retry')
    } else {
      report.dead++
      logger.error({ ...fields, err: error }, 'notification dead after max attempts')
    }
    return
  }
  // Sent: if this report fails (the database went away), the lease runs out and the mail
  // is sent again: at least once, never lost.
  await finishMail(mail, 'sent')
  report.sent++
  logger.info(fields, 'notification sent')
}

/** One pass: claims and delivers due mails until none is due. */
export async function deliverDueMails(
  transport: MailTransport = smtpTransport(),
): Promise<DeliveryReport> {
  const report: DeliveryReport = { sent: 0, skipped: 0, failed: 0, dead: 0 }
  for (;;) {
    const mails = await claimMails(BATCH, LEASE_SECONDS)
    for (const mail of mails) await deliverOne(mail, transport, report)
    if (mails.length < BATCH) return report
  }
}

let timer: ReturnType<typeof setInterval> | undefined
let running: Promise<void> | undefined
let again = false
let activeTransport: MailTransport | undefined

function runPass(): Promise<void> {
  if (running) {
    again = true
    return running
  }
  running = (async () => {
    do {
      again = false
      try {
        await deliverDueMails(activeTransport)
      } catch (error) {
        logger.warn({ err: error }, 'notification delivery pass failed; next pass retries')
      }
    } while (again)
  })().finally(() => {
    running = undefined
  })
  return running
}

// The dev server re-evaluates changed modules: the interval of an earlier copy of this
// module is found here and stopped, so one process never runs two deliverers.
const previous = globalThis as { mailDeliveryTimer?: ReturnType<typeof setInterval> }

/** Starts this instance's deliverer (server start); polls every MAIL_POLL_INTERVAL_MS. */
export function startMailDelivery(transport?: MailTransport) {
  if (timer) return
  clearInterval(previous.mailDeliveryTimer)
  activeTransport = transport
  timer = setInterval(() => void runPass(), getEnv().MAIL_POLL_INTERVAL_MS)
  timer.unref()
  previous.mailDeliveryTimer = timer
  void runPass()
}

/** Looks for due mails now (after something was queued), without waiting for the result. */
export function wakeMailDelivery() {
  if (timer) setImmediate(() => void runPass())
}

/** Stops the deliverer and waits for a pass in progress. */
export async function stopMailDelivery() {
  clearInterval(timer)
  timer = undefined
  await running
}

/**
 * Queues a security notice after the account action succeeded, and wakes the deliverer. The
 * action happened in Supabase Auth, not in this database's transaction: when the database
 * cannot take the row, the failure is logged (the action itself stands).
 */
export async function queueSecurityNotice(
  userId: string,
  kind: 'password_changed' | 'signed_out_everywhere',
) {
  try {
    await enqueueSecurityNotice(userId, kind)
    wakeMailDelivery()
  } catch (error) {
    logger.error({ kind, user: userId, err: error }, 'security notice could not be queued')
  }
}

/**
 * Queues the notice that an address's guessing ceiling was reached (password sign-in, the
 * current-password check or the emailed code is paused; the emailed link still works) and
 * wakes the deliverer. Nothing is queued for an address without an account. A failure is
 * logged: the attempts stay refused either way.
 */
export async function queueAttemptsNotice(email: string, flow: GuessedFlow, minutes: number) {
  try {
    if (await enqueueAttemptsNotice(email, flow, minutes)) wakeMailDelivery()
  } catch (error) {
    logger.error({ flow, err: error }, 'attempts notice could not be queued')
  }
}
