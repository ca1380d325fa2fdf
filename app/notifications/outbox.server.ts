import { serviceRpc } from '~/lib/database/database-availability.server'

import type { MailKind } from './kinds'

/** A mail claimed for one delivery attempt (`claim_notifications`). */
export interface ClaimedMail {
  id: string
  /** Null only for the mail of a deleted account. */
  user_id: string | null
  kind: MailKind
  to_address: string
  data: Record<string, unknown>
  /** This attempt's number (1 for the first). */
  attempts: number
  /** The user's preference for the mail's kind, now. */
  wanted: boolean
  created_at: string
}

/**
 * Queues a security notice for a user, to their current address. Called where the account
 * action has succeeded (password changed, signed out everywhere); the email change is
 * queued by the database itself when Supabase Auth confirms it.
 */
export function enqueueSecurityNotice(
  userId: string,
  kind: 'password_changed' | 'signed_out_everywhere',
) {
  return serviceRpc('enqueue_notification', {
    p_user_id: userId,
    p_kind: kind,
    p_data: { at: new Date().toISOString() },
  })
}

/** What was paused when an address's guessing ceiling was reached (rate-limits.server.ts). */
export type GuessedFlow = 'sign-in' | 'password-check' | 'email-code'

/**
 * Queues the "too many attempts" notice for the account with this address, if there is one
 * (false otherwise; the caller's answer does not depend on it).
 */
export function enqueueAttemptsNotice(email: string, flow: GuessedFlow, minutes: number) {
  return serviceRpc('enqueue_attempts_notice', {
    p_email: email,
    p_flow: flow,
    p_data: { at: new Date().toISOString(), minutes },
  })
}

/** Claims up to `limit` due mails; nobody else claims them for `leaseSeconds`. */
export function claimMails(limit: number, leaseSeconds: number) {
  return serviceRpc('claim_notifications', {
    p_limit: limit,
    p_lease_seconds: leaseSeconds,
  }) as Promise<ClaimedMail[]>
}

/** Reports one attempt's outcome; false when the claim had run out (another deliverer has it). */
export function finishMail(
  mail: ClaimedMail,
  outcome: 'sent' | 'skipped' | 'failed',
  failure?: { error: string; retryAt: Date | null },
) {
  return serviceRpc('finish_notification', {
    p_id: mail.id,
    p_attempt: mail.attempts,
    p_outcome: outcome,
    p_error: failure?.error ?? null,
    p_retry_at: failure?.retryAt?.toISOString() ?? null,
  })
}
