import type { Queryable } from '../database'
import { escapeHtml } from './http'

/** Auth mails by their GoTrue type; `smtp`: a mail the app sent through the SMTP listener. */
export type MailKind =
  'signup' | 'magiclink' | 'recovery' | 'email_change' | 'invite' | 'reauthentication' | 'smtp'
/** The auth mails that carry a link (all but the reauthentication code). */
export type LinkMailKind = Exclude<MailKind, 'reauthentication' | 'smtp'>

/** An email the emulator "sent", as stored in local_emulator.mail. */
export interface Mail {
  id: string
  to: string
  subject: string
  kind: MailKind
  text: string
  html: string
  /** The app link: redirect_to (or SITE_URL/auth/callback) + token_hash + type. */
  link: string | null
  /** GoTrue's GET /auth/v1/verify link for the same token. */
  verifyUrl: string | null
  /** The 6-digit code, usable with verifyOtp({ email, token, type }). */
  otp: string | null
  createdAt: string
}

const TEMPLATES: Record<LinkMailKind, { subject: string; intro: string; action: string }> = {
  signup: {
    subject: 'Confirm Your Signup',
    intro: 'Follow this link to confirm your user:',
    action: 'Confirm your mail',
  },
  magiclink: { subject: 'Your Magic Link', intro: 'Follow this link to login:', action: 'Log In' },
  recovery: {
    subject: 'Reset Your Password',
    intro: 'Follow this link to reset the password for your user:',
    action: 'Reset Password',
  },
  email_change: {
    subject: 'Confirm Email Change',
    intro: 'Follow this link to confirm the update of your email:',
    action: 'Change Email',
  },
  invite: {
    subject: 'You have been invited',
    intro: 'You have been invited to create a user. Follow this link to accept the invite:',
    action: 'Accept the invite',
  },
}

interface MailRow {
  id: string
  to_address: string
  subject: string
  kind: MailKind
  text_body: string
  html_body: string
  link: string | null
  verify_url: string | null
  otp: string | null
  created_at: Date
}

function toMail(row: MailRow): Mail {
  return {
    id: row.id,
    to: row.to_address,
    subject: row.subject,
    kind: row.kind,
    text: row.text_body,
    html: row.html_body,
    link: row.link,
    verifyUrl: row.verify_url,
    otp: row.otp,
    createdAt: new Date(row.created_at).toISOString(),
  }
}

/** "Sends" an email with Supabase's default wording: stores it in the inbox. */
export async function sendMail(
  db: Queryable,
  input: { to: string; kind: LinkMailKind; link: string; verifyUrl: string; otp: string },
) {
  const template = TEMPLATES[input.kind]
  const text = `${template.subject}\n\n${template.intro}\n${input.link}\n\nAlternatively, enter the code: ${input.otp}\n`
  const html =
    `<h2>${escapeHtml(template.subject)}</h2>\n<p>${escapeHtml(template.intro)}</p>\n` +
    `<p><a href="${escapeHtml(input.link)}">${escapeHtml(template.action)}</a></p>\n` +
    `<p>Alternatively, enter the code: <strong>${escapeHtml(input.otp)}</strong></p>`
  await db.query(
    `insert into local_emulator.mail (to_address, subject, kind, text_body, html_body, link, verify_url, otp)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [input.to, template.subject, input.kind, text, html, input.link, input.verifyUrl, input.otp],
  )
}

/** The body of an HTML document (what the inbox page shows inside its own page). */
function bodyOf(html: string) {
  const match = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)
  return match ? match[1] : html
}

/** Stores a mail received over SMTP (smtp.ts) in the same inbox as the auth mails. */
export async function storeReceivedMail(
  db: Queryable,
  input: { to: string; subject: string; text: string; html: string },
) {
  const html = input.html ? bodyOf(input.html) : `<pre>${escapeHtml(input.text)}</pre>`
  await db.query(
    `insert into local_emulator.mail (to_address, subject, kind, text_body, html_body)
     values ($1, $2, 'smtp', $3, $4)`,
    [input.to, input.subject, input.text, html],
  )
}

/** The reauthentication mail: only a code, the nonce of a password change (GoTrue's template). */
export async function sendReauthenticationMail(db: Queryable, input: { to: string; otp: string }) {
  const subject = 'Confirm reauthentication'
  const text = `${subject}\n\nEnter the code: ${input.otp}\n`
  const html = `<h2>${subject}</h2>\n<p>Enter the code: <strong>${escapeHtml(input.otp)}</strong></p>`
  await db.query(
    `insert into local_emulator.mail (to_address, subject, kind, text_body, html_body, otp)
     values ($1, $2, 'reauthentication', $3, $4, $5)`,
    [input.to, subject, text, html, input.otp],
  )
}

/** Mails, newest first; only those to one address when given. */
export async function listMail(db: Queryable, to?: string): Promise<Mail[]> {
  const { rows } = to
    ? await db.query<MailRow>(
        'select * from local_emulator.mail where lower(to_address) = lower($1) order by created_at desc',
        [to.trim()],
      )
    : await db.query<MailRow>('select * from local_emulator.mail order by created_at desc')
  return rows.map(toMail)
}

export async function clearMail(db: Queryable) {
  await db.query('delete from local_emulator.mail')
}
