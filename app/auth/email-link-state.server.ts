import type { EmailOtpType } from '@supabase/supabase-js'

import { database } from '~/lib/database/database.server'
import { logger } from '~/lib/server/logger.server'

/** `otp_expiry` in supabase/config.toml (tests/config checks they agree). */
export const EMAIL_LINK_LIFETIME_SECONDS = 3600

export type LinkPurpose = 'confirm' | 'sign-in' | 'reset' | 'invite' | 'email-change'

/** `used`: no such token (used, replaced, or never ours); `unchecked`: the auth server decides. */
export type LinkState =
  | { state: 'valid'; purpose: LinkPurpose; account: string; newEmail: string | null }
  | { state: 'expired'; purpose: LinkPurpose; account: string }
  | { state: 'used' }
  | { state: 'unchecked' }

interface LinkRow {
  token_type: string
  sent_to: string | null
  account_email: string | null
  new_email: string | null
  age_seconds: number
}

/** The token kinds each link type may verify (GoTrue verify.go). */
const PURPOSES: Record<EmailOtpType, Partial<Record<string, LinkPurpose>>> = {
  signup: { confirmation_token: 'confirm' },
  invite: { confirmation_token: 'invite' },
  email: { confirmation_token: 'confirm', recovery_token: 'sign-in' },
  magiclink: { recovery_token: 'sign-in' },
  recovery: { recovery_token: 'reset' },
  email_change: {
    email_change_token_new: 'email-change',
    email_change_token_current: 'email-change',
  },
}

export function isEmailLinkType(type: string | null): type is EmailOtpType {
  return type !== null && Object.hasOwn(PURPOSES, type)
}

/** Enough for the owner to recognise, not the whole address to a forwarded link's holder. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '•••'
  const chars = [...email.slice(0, at)]
  return `${chars[0]}•••${chars.length > 3 ? chars.at(-1) : ''}${email.slice(at)}`
}

/** Never throws. */
export async function emailLinkState(link: {
  tokenHash: string
  type: EmailOtpType
}): Promise<LinkState> {
  const { data, error } = await database({ timeoutMs: 3000 }).rpc('email_link_state', {
    p_token_hash: link.tokenHash,
  })
  if (error) {
    logger.warn({ err: error }, 'email link state unavailable')
    return { state: 'unchecked' }
  }
  // The generated type cannot know which returned columns may be null: these are the ones.
  const row: LinkRow | undefined = Array.isArray(data) ? data[0] : undefined
  const purpose = row ? PURPOSES[link.type][row.token_type] : undefined
  if (!row || !purpose) return { state: 'used' }
  const account = maskEmail(
    (purpose === 'email-change' ? row.account_email : row.sent_to) ?? row.account_email ?? '',
  )
  if (row.age_seconds >= EMAIL_LINK_LIFETIME_SECONDS) return { state: 'expired', purpose, account }
  const newEmail = purpose === 'email-change' && row.new_email ? maskEmail(row.new_email) : null
  return { state: 'valid', purpose, account, newEmail }
}
