import type { Queryable } from '../../database'
import { type LinkMailKind, type MailKind, sendMail } from '../mail'
import type { AuthContext } from './context'
import type { MailData } from './go-template'
import { renderMailTemplate, type TemplateName } from './mail-templates'
import { issueOneTimeToken, type TokenType } from './otp'
import { type CodeChallenge, createFlowState } from './pkce'
import { checkMailFrequency } from './rate-limits'
import { confirmationUrl, resolveRedirect } from './redirects'
import type { UserRow } from './users'

/**
 * Renders a mail with the variables every mail has and hands it over after `mailDeliveryMs`,
 * as GoTrue answers after its SMTP transaction.
 */
async function deliver(
  ctx: AuthContext,
  db: Queryable,
  user: UserRow,
  template: TemplateName,
  mail: { to?: string; kind: Exclude<MailKind, 'smtp'>; verifyUrl: string | null; otp: string },
  data: MailData = {},
) {
  const rendered = renderMailTemplate(ctx.config.mailTemplates, template, {
    SiteURL: ctx.config.siteUrl,
    ConfirmationURL: mail.verifyUrl ?? undefined,
    Email: user.email ?? '',
    Token: mail.otp,
    Data: user.raw_user_meta_data,
    ...data,
  })
  await new Promise((resolve) => setTimeout(resolve, ctx.config.mailDeliveryMs))
  await sendMail(db, { ...mail, to: mail.to ?? user.email ?? '', ...rendered })
}

const FLOWS: Record<
  Exclude<LinkMailKind, 'email_change'>,
  { tokenType: TokenType; method: string; template: TemplateName }
> = {
  signup: { tokenType: 'confirmation_token', method: 'email/signup', template: 'confirmation' },
  invite: { tokenType: 'confirmation_token', method: 'invite', template: 'invite' },
  magiclink: { tokenType: 'recovery_token', method: 'magiclink', template: 'magic_link' },
  recovery: { tokenType: 'recovery_token', method: 'recovery', template: 'recovery' },
}

export interface EmailTokenInput {
  user: UserRow
  kind: Exclude<LinkMailKind, 'email_change'>
  redirectTo?: string | null
  challenge?: CodeChallenge
}

/** Creates the one-time token (and PKCE flow) behind an email, and the links that carry it. */
export async function prepareEmailToken(ctx: AuthContext, db: Queryable, input: EmailTokenInput) {
  const flow = FLOWS[input.kind]
  const email = input.user.email ?? ''
  if (input.challenge) {
    await createFlowState(db, {
      userId: input.user.id,
      challenge: input.challenge,
      providerType: 'email',
      authenticationMethod: flow.method,
    })
  }
  const { otp, tokenHash } = await issueOneTimeToken(db, {
    userId: input.user.id,
    type: flow.tokenType,
    email,
    pkce: Boolean(input.challenge),
  })
  const redirectTo = resolveRedirect(ctx.config, input.redirectTo)
  return {
    otp,
    tokenHash,
    verifyUrl: confirmationUrl(ctx.config, redirectTo, tokenHash, input.kind),
    redirectTo,
  }
}

/**
 * When the previous mail of a kind went to the user (mail.go): a magic link is "a recovery
 * with a different template", so it shares the recovery timer; an invite has none.
 */
function lastSentAt(user: UserRow, kind: EmailTokenInput['kind']) {
  if (kind === 'signup') return user.confirmation_sent_at
  if (kind === 'magiclink' || kind === 'recovery') return user.recovery_sent_at
  return null
}

/** A signup, invite, magic link or recovery mail, within `max_frequency` and the mail budget. */
export async function sendAuthEmail(ctx: AuthContext, db: Queryable, input: EmailTokenInput) {
  checkMailFrequency(lastSentAt(input.user, input.kind), ctx.config.mailMaxFrequencySeconds)
  ctx.limits.mailSent()
  const prepared = await prepareEmailToken(ctx, db, input)
  const { verifyUrl, otp, tokenHash, redirectTo } = prepared
  const data = { TokenHash: tokenHash, RedirectTo: redirectTo }
  await deliver(
    ctx,
    db,
    input.user,
    FLOWS[input.kind].template,
    { kind: input.kind, verifyUrl, otp },
    data,
  )
  return prepared
}

/** The reauthentication mail: the nonce of a password change, from its template. */
export async function sendReauthenticationMail(
  ctx: AuthContext,
  db: Queryable,
  input: { user: UserRow; otp: string },
) {
  const mail = { kind: 'reauthentication' as const, verifyUrl: null, otp: input.otp }
  await deliver(ctx, db, input.user, 'reauthentication', mail)
}

/**
 * Starts an email change: tokens for the new address and (secure email change, GoTrue's
 * default) the current one; both must be confirmed. Sends the mails unless `send` is false.
 */
export async function startEmailChange(
  ctx: AuthContext,
  db: Queryable,
  input: {
    user: UserRow
    newEmail: string
    redirectTo?: string | null
    challenge?: CodeChallenge
    send?: boolean
  },
) {
  const { user, newEmail } = input
  if (input.send !== false) {
    checkMailFrequency(user.email_change_sent_at, ctx.config.mailMaxFrequencySeconds)
    ctx.limits.mailSent()
  }
  await db.query(
    `update auth.users set email_change = $2, email_change_confirm_status = 0, updated_at = now() where id = $1`,
    [user.id, newEmail],
  )
  if (input.challenge) {
    await createFlowState(db, {
      userId: user.id,
      challenge: input.challenge,
      providerType: 'email',
      authenticationMethod: 'email_change',
    })
  }
  const targets: { email: string; type: TokenType }[] = [
    { email: newEmail, type: 'email_change_token_new' },
  ]
  if (ctx.config.secureEmailChange && user.email)
    targets.push({ email: user.email, type: 'email_change_token_current' })
  const redirectTo = resolveRedirect(ctx.config, input.redirectTo)
  const issued = []
  for (const target of targets) {
    const { otp, tokenHash } = await issueOneTimeToken(db, {
      userId: user.id,
      type: target.type,
      email: target.email,
      pkce: Boolean(input.challenge),
    })
    const verify = confirmationUrl(ctx.config, redirectTo, tokenHash, 'email_change')
    if (input.send !== false) {
      const mail = { to: target.email, kind: 'email_change' as const, verifyUrl: verify, otp }
      await deliver(ctx, db, user, 'email_change', mail, {
        NewEmail: newEmail,
        TokenHash: tokenHash,
        SendingTo: target.email,
        RedirectTo: redirectTo,
      })
    }
    issued.push({ ...target, otp, tokenHash, verifyUrl: verify })
  }
  return issued
}
