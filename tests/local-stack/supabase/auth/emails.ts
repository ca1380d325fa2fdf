import type { Queryable } from '../../database'
import { type LinkMailKind, sendMail } from '../mail'
import type { AuthContext } from './context'
import { renderMailTemplate, type TemplateName } from './mail-templates'
import { issueOneTimeToken, type TokenType } from './otp'
import { type CodeChallenge, createFlowState } from './pkce'
import { checkMailFrequency } from './rate-limits'
import { confirmationUrl, resolveRedirect } from './redirects'
import type { UserRow } from './users'

/** Hands one mail over after `mailDeliveryMs`, as GoTrue answers after its SMTP transaction. */
async function deliver(ctx: AuthContext, db: Queryable, mail: Parameters<typeof sendMail>[1]) {
  if (ctx.config.mailDeliveryMs > 0)
    await new Promise((resolve) => setTimeout(resolve, ctx.config.mailDeliveryMs))
  await sendMail(db, mail)
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
  const rendered = renderMailTemplate(ctx.config.mailTemplates, FLOWS[input.kind].template, {
    SiteURL: ctx.config.siteUrl,
    ConfirmationURL: prepared.verifyUrl,
    Email: input.user.email ?? '',
    Token: prepared.otp,
    TokenHash: prepared.tokenHash,
    RedirectTo: prepared.redirectTo,
    Data: input.user.raw_user_meta_data,
  })
  await deliver(ctx, db, {
    to: input.user.email ?? '',
    kind: input.kind,
    ...rendered,
    verifyUrl: prepared.verifyUrl,
    otp: prepared.otp,
  })
  return prepared
}

/** The reauthentication mail: the nonce of a password change, from its template. */
export async function sendReauthenticationMail(
  ctx: AuthContext,
  db: Queryable,
  input: { user: UserRow; otp: string },
) {
  const rendered = renderMailTemplate(ctx.config.mailTemplates, 'reauthentication', {
    SiteURL: ctx.config.siteUrl,
    Email: input.user.email ?? '',
    Token: input.otp,
    Data: input.user.raw_user_meta_data,
  })
  await deliver(ctx, db, {
    to: input.user.email ?? '',
    kind: 'reauthentication',
    ...rendered,
    verifyUrl: null,
    otp: input.otp,
  })
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
      const rendered = renderMailTemplate(ctx.config.mailTemplates, 'email_change', {
        SiteURL: ctx.config.siteUrl,
        ConfirmationURL: verify,
        Email: user.email ?? '',
        NewEmail: newEmail,
        Token: otp,
        TokenHash: tokenHash,
        SendingTo: target.email,
        RedirectTo: redirectTo,
        Data: user.raw_user_meta_data,
      })
      await deliver(ctx, db, {
        to: target.email,
        kind: 'email_change',
        ...rendered,
        verifyUrl: verify,
        otp,
      })
    }
    issued.push({ ...target, otp, tokenHash, verifyUrl: verify })
  }
  return issued
}
