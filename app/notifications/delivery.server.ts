import * as z from 'zod/mini'

import { getEnv } from '~/env.server'
import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { rpc } from '~/lib/database/rpc.server'
import { logger } from '~/lib/server/logger.server'
import { mailFailures } from '~/lib/server/metrics.server'

import { MAIL_KINDS, type MailKind } from './kinds'
import { type MailTransport, smtpTransport } from './mailer.server'
import { type ReceiptPayment, renderMail } from './render'

/**
 * One per instance, in the background (docs/notifications.md): a webhook only writes the row and
 * wakes it, so a slow mail server never slows a webhook; a failed send retries, twice as late.
 */
export const MAX_ATTEMPTS = 12
const MAX_RETRY_DELAY_MS = 6 * 60 * 60 * 1000
/** How long a claimed mail is ours: well above the SMTP timeouts (mailer.server.ts). */
const LEASE_SECONDS = 120
const BATCH = 10

const claimedMails = z.array(
  z.object({
    id: z.string(),
    /** None for the mails about no account (account deleted, contact). */
    user_id: z.nullable(z.string()),
    kind: z.custom<MailKind>((kind) => typeof kind === 'string' && Object.hasOwn(MAIL_KINDS, kind)),
    to_address: z.string(),
    data: z.record(z.string(), z.unknown()),
    /** This attempt's number (1 for the first). */
    attempts: z.number(),
    /** The user's preference for the mail's kind, now. */
    wanted: z.boolean(),
  }),
)
type ClaimedMail = z.infer<typeof claimedMails>[number]

type DeliveryReport = Record<'sent' | 'skipped' | 'failed' | 'dead', number>

/** When to try again after attempt `attempt` failed; null after the last one (dead). */
export function nextAttemptAt(attempt: number, now: number, baseMs: number): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null
  return new Date(now + Math.min(baseMs * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS))
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

/** Reports one attempt's outcome; false when the claim had run out (another deliverer has it). */
function finishMail(
  mail: ClaimedMail,
  outcome: 'sent' | 'skipped' | 'failed',
  failure?: { error: string; retryAt: Date | null },
) {
  return rpc('finish_notification', {
    p_id: mail.id,
    p_attempt: mail.attempts,
    p_outcome: outcome,
    p_error: failure?.error ?? null,
    p_retry_at: failure?.retryAt?.toISOString() ?? null,
  })
}

export async function deliverDueMails(
  transport: MailTransport = smtpTransport(),
): Promise<DeliveryReport> {
  const report = { sent: 0, skipped: 0, failed: 0, dead: 0 }
  for (;;) {
    const mails = await rpc(
      'claim_notifications',
      { p_limit: BATCH, p_lease_seconds: LEASE_SECONDS },
      { result: claimedMails },
    )
    for (const mail of mails) await deliverOne(mail, transport, report)
    if (mails.length < BATCH) return report
  }
}

async function deliverOne(mail: ClaimedMail, transport: MailTransport, report: DeliveryReport) {
  const fields = { id: mail.id, kind: mail.kind, attempt: mail.attempts }
  // `true`: not a mail, the providers' customers take a changed address (retried as a mail is).
  const rendered =
    mail.kind === 'customer_email' ||
    (mail.wanted &&
      renderMail(
        { kind: mail.kind, to: mail.to_address, data: mail.data },
        {
          siteUrl: getEnv().SITE_URL,
          payment: mail.kind === 'payment_receipt' ? await receiptPayment(mail) : undefined,
        },
      ))
  if (!rendered) {
    await finishMail(mail, 'skipped')
    report.skipped++
    const reason = mail.wanted ? 'nothing to send any more' : 'preference off'
    logger.info(fields, `notification skipped: ${reason}`)
    return
  }
  try {
    await (rendered === true
      ? updateCustomerEmail!(mail.user_id!, mail.data)
      : transport.send({ to: mail.to_address, ...rendered }))
  } catch (error) {
    const retryAt = nextAttemptAt(mail.attempts, Date.now(), getEnv().MAIL_RETRY_BASE_MS)
    const message = error instanceof Error ? error.message : String(error)
    await finishMail(mail, 'failed', { error: message, retryAt })
    mailFailures.inc({ final: retryAt ? 'no' : 'yes' })
    if (retryAt) {
      report.failed++
      logger.warn({ ...fields, retryAt, err: error }, 'notification not sent, will retry')
    } else {
      report.dead++
      logger.error({ ...fields, err: error }, 'notification dead after max attempts')
    }
    return
  }
  // Sent: if this report fails, the lease runs out and the mail is sent again: never lost.
  await finishMail(mail, 'sent')
  report.sent++
  logger.info(fields, 'notification sent')
}

let timer: ReturnType<typeof setInterval> | undefined
let running: Promise<void> | undefined
let again = false

function runPass() {
  if (running) {
    again = true
    return
  }
  running = (async () => {
    do {
      again = false
      try {
        await deliverDueMails()
      } catch (error) {
        logger.warn({ err: error }, 'notification delivery pass failed; next pass retries')
      }
    } while (again)
  })().finally(() => {
    running = undefined
  })
}

// The dev server re-evaluates modules: an earlier copy's interval is stopped (one deliverer).
const previous = globalThis as { mailDeliveryTimer?: ReturnType<typeof setInterval> }

type CustomerEmailTask = (userId: string, change: Record<string, unknown>) => Promise<void>
/** The `customer_email` task, given by the server entry (billing builds on notifications). */
let updateCustomerEmail: CustomerEmailTask | undefined

/** Starts this instance's deliverer (server start); polls every MAIL_POLL_INTERVAL_MS. */
export function startMailDelivery(tasks: { customerEmail: CustomerEmailTask }) {
  updateCustomerEmail = tasks.customerEmail
  if (timer) return
  clearInterval(previous.mailDeliveryTimer)
  timer = setInterval(runPass, getEnv().MAIL_POLL_INTERVAL_MS)
  timer.unref()
  previous.mailDeliveryTimer = timer
  runPass()
}

/** Looks for due mails now (after something was queued), without waiting for the result. */
export function wakeMailDelivery() {
  if (timer) setImmediate(runPass)
}

export async function stopMailDelivery() {
  clearInterval(timer)
  timer = undefined
  await running
}

/** Outside this database's transaction: a failure to queue is logged, and the action stands. */
export async function queueSecurityNotice(
  userId: string,
  kind: 'password_changed' | 'signed_out_everywhere',
) {
  try {
    await rpc('enqueue_notification', {
      p_user_id: userId,
      p_kind: kind,
      p_data: { at: new Date().toISOString() },
    })
    wakeMailDelivery()
  } catch (error) {
    logger.error({ kind, user: userId, err: error }, 'security notice could not be queued')
  }
}

/** What was paused when an address's guessing ceiling was reached (rate-limits.server.ts). */
export type GuessedFlow = 'sign-in' | 'password-check' | 'email-code'

/** Nothing for an address without an account; a failure is logged: the attempts stay refused. */
export async function queueAttemptsNotice(email: string, flow: GuessedFlow, minutes: number) {
  try {
    const queued = await rpc('enqueue_attempts_notice', {
      p_email: email,
      p_flow: flow,
      p_data: { at: new Date().toISOString(), minutes },
    })
    if (queued) wakeMailDelivery()
  } catch (error) {
    logger.error({ flow, err: error }, 'attempts notice could not be queued')
  }
}
