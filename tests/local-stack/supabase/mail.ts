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
  /** The mail's first link, as rendered from the project's template. */
  link: string | null
  /** GoTrue's GET /auth/v1/verify link for the same token. */
  verifyUrl: string | null
  /** The 6-digit code, usable with verifyOtp({ email, token, type }). */
  otp: string | null
  createdAt: string
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeEntities(text: string) {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
      return String.fromCodePoint(code)
    }
    return ENTITIES[name.toLowerCase()] ?? whole
  })
}

/** The first link of a mail's HTML, as a mail client would open it (references decoded). */
export function firstLink(html: string) {
  const match = /<a\s[^>]*?href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(html)
  if (!match) return null
  return decodeEntities((match[1] ?? match[2] ?? match[3]).trim())
}

/** A plain-text reading of a mail's HTML (for the inbox's text view and tests). */
function textOf(html: string) {
  return decodeEntities(
    html
      .replace(/<(head|style|script)[^>]*>[\s\S]*?<\/\1>/gi, '')
      .replace(/<a\s[^>]*?href\s*=\s*"([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '$2 ($1)')
      .replace(/<(br|\/p|\/h[1-6]|\/li|\/tr|hr)[^>]*>/gi, '\n')
      .replace(/<[^>]+>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line, index, lines) => line !== '' || (index > 0 && lines[index - 1] !== ''))
    .join('\n')
    .trim()
}

/** Stores an auth mail in the inbox with its first link, GoTrue's verify link and its code. */
export async function sendMail(
  db: Queryable,
  input: {
    to: string
    kind: Exclude<MailKind, 'smtp'>
    subject: string
    html: string
    verifyUrl: string | null
    otp: string
  },
) {
  const text = `${textOf(input.html)}\n`
  await db.query(
    `insert into local_emulator.mail (to_address, subject, kind, text_body, html_body, link, verify_url, otp)
     values ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      input.to,
      input.subject,
      input.kind,
      text,
      bodyOf(input.html),
      firstLink(input.html),
      input.verifyUrl,
      input.otp,
    ],
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

/** Mails, newest first; only those to one address when given. */
export async function listMail(db: Queryable, to?: string): Promise<Mail[]> {
  const { rows } = await db.query<Mail>(
    `select id, to_address as "to", subject, kind, text_body as text, html_body as html, link,
       verify_url as "verifyUrl", otp, created_at as "createdAt" from local_emulator.mail
     where $1::text is null or lower(to_address) = lower($1) order by created_at desc`,
    [to?.trim() ?? null],
  )
  return rows.map((mail) => ({ ...mail, createdAt: new Date(mail.createdAt).toISOString() }))
}
