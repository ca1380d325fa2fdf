import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from '@remix-run/node'
import type { SupabaseClient } from '@supabase/supabase-js'

import { mailSignInLink, sendPasswordReset } from '~/auth/auth.server'
import { markLinkRequested } from '~/auth/link-origin.server'
import { afterAnswer } from '~/auth/mail-requests.server'
import {
  hitAuthRateLimit,
  pausedCheckMessage,
  tooManyAttemptsInit,
  tooManyAttemptsMessage,
} from '~/auth/rate-limits.server'
import { confirmedByAuthServer, type SessionUser } from '~/auth/session.server'
import type { AsUser } from '~/lib/database/database.server'
import { type FormResult, reply, UNKNOWN_FORM } from '~/lib/forms/form-reply'
import { readFormData } from '~/lib/server/http.server'
import { clientAddress, type RateLimitResult } from '~/lib/server/rate-limit.server'
import { queueSecurityNotice } from '~/notifications/delivery.server'

import {
  type CredentialOutcome,
  ownerRefusal,
  rememberRequestedEmail,
  requestEmailChange,
  savePassword,
} from './credentials.server'
import { deleteAccount } from './deletion.server'
import { EMAIL_CHANGES_ONCE } from './limits'
import {
  ChangeEmailSchema,
  ChangePasswordSchema,
  DeleteAccountSchema,
  SetPasswordSchema,
} from './schemas'
import { readAccountSettings } from './summary.server'

const PASSWORD_FIELDS = ['currentPassword', 'password', 'confirmPassword', 'code']

const errorsOf = ({ field, message }: { field?: string; message: string }) =>
  field ? { fieldErrors: { [field]: [message] } } : { formErrors: [message] }

/** A refusal on `intent`'s form: conform's result, and no message. */
const refusal = (intent: string, result: FormResult, init: ResponseInit) =>
  reply(result, { intent, message: null }, init)

const tooManyAttempts = (intent: string, limit: RateLimitResult, headers: Headers) =>
  refusal(
    intent,
    { status: 'error', error: { '': [tooManyAttemptsMessage(limit.retryAfterSeconds)] } },
    tooManyAttemptsInit(limit, headers),
  )

export async function handleAccountSettings(
  request: Request,
  { supabase, asUser }: { supabase: SupabaseClient; asUser: AsUser },
  user: SessionUser,
  headers: Headers,
) {
  const formData = await readFormData(request, { headers })
  const intent = formData.get('intent')
  // What cannot be undone or takes the account over: the auth server confirms the session first.
  const confirmSession = async () => {
    if (!(await confirmedByAuthServer({ user, supabase })))
      throw redirect('/sign-in?notice=sign-in-to-continue', { status: 303, headers })
  }
  const badRequest = { status: 400, headers }
  const sent = (form: string, message: string) =>
    reply({ status: 'success' as const }, { intent: form, message }, { headers })

  if (intent === 'change-email') {
    const submission = parseWithZod(formData, { schema: ChangeEmailSchema })
    if (submission.status !== 'success') return refusal(intent, submission.reply(), badRequest)
    const { email } = submission.value
    if (email === user.email.toLowerCase()) {
      const fieldErrors = { email: ['This is already your email address'] }
      return refusal(intent, submission.reply({ fieldErrors }), badRequest)
    }
    const limit = await hitAuthRateLimit(request, 'email-change', email)
    if (!limit.allowed) {
      const formErrors = [tooManyAttemptsMessage(limit.retryAfterSeconds)]
      const result = submission.reply({ formErrors, hideFields: PASSWORD_FIELDS })
      return refusal(intent, result, tooManyAttemptsInit(limit, headers))
    }
    const refused = await ownerCheck(request, user, submission.value, headers, confirmSession)
    if (refused) return refusal(intent, submission.reply(refused.options), refused.init)
    requestEmailChange(supabase, email, clientAddress(request))
    // This browser asked for both links; the page shows the address pending, taken or not.
    headers.append('Set-Cookie', await markLinkRequested(request, user.email, email))
    headers.append('Set-Cookie', await rememberRequestedEmail(email))
    const message = `${EMAIL_CHANGES_ONCE} We sent one to ${email} and one to your current address.`
    return reply(submission.reply({ resetForm: true }), { intent, message }, { headers })
  }

  if (intent === 'change-password' || intent === 'set-password') {
    // Either may need the "secure password change" code; its field shows once the server asks.
    const codeAsked = formData.has('code')
    const schema = intent === 'change-password' ? ChangePasswordSchema : SetPasswordSchema
    const submission = parseWithZod(formData, { schema })
    const failed = (
      options: { formErrors?: string[]; fieldErrors?: Record<string, string[]> },
      init: ResponseInit,
      fields: { needsCode?: boolean; offerResetLink?: boolean } = {},
    ) =>
      reply(
        submission.reply({ hideFields: PASSWORD_FIELDS, ...options }),
        { intent, message: null, needsCode: codeAsked, ...fields },
        init,
      )
    if (submission.status !== 'success') return failed({}, badRequest)
    const limit = await hitAuthRateLimit(request, 'password-check', user.email)
    if (limit.paused && intent === 'change-password') {
      // Too many wrong current passwords (a stolen session guessing): a reset link still works.
      const formErrors = [pausedCheckMessage('password-check', limit.retryAfterSeconds)]
      return failed({ formErrors }, tooManyAttemptsInit(limit, headers), { offerResetLink: true })
    }
    if (!limit.allowed) {
      const formErrors = [tooManyAttemptsMessage(limit.retryAfterSeconds)]
      return failed({ formErrors }, tooManyAttemptsInit(limit, headers))
    }
    await confirmSession()
    // Only an account without a password may skip the current one.
    const hasPassword =
      intent === 'set-password' && (await readAccountSettings(asUser)).account?.password !== false
    const outcome: CredentialOutcome = hasPassword
      ? { ok: false, message: 'Your account already has a password: change it above.' }
      : await savePassword(supabase, {
          ...submission.value,
          email: user.email,
          address: clientAddress(request),
        })
    if (!outcome.ok)
      return failed(errorsOf(outcome), badRequest, { needsCode: Boolean(outcome.needsCode) })
    // A first password is a new way in: the same notice as a change, queued after the answer.
    afterAnswer('password-changed notice', () => queueSecurityNotice(user.id, 'password_changed'))
    const message =
      intent === 'change-password'
        ? 'Your password has been changed.'
        : 'Your password is set. You can now also sign in with your email address and this password.'
    return reply(submission.reply({ resetForm: true }), { intent, message }, { headers })
  }

  if (intent === 'send-reset-link') {
    // While the current-password check is paused: a link to the account's own address.
    const limit = await hitAuthRateLimit(request, 'password-reset', user.email)
    if (!limit.allowed) return tooManyAttempts('change-password', limit, headers)
    headers.append('Set-Cookie', await sendPasswordReset(request, user.email))
    const message = `We emailed a reset link to ${user.email}. Open it in this browser to choose a new password.`
    return sent('change-password', message)
  }

  if (intent === 'send-code:change-email' || intent === 'send-code:delete-account') {
    // On the magic link's budget, sent after the answer.
    const form = intent === 'send-code:change-email' ? 'change-email' : 'delete-account'
    const limit = await hitAuthRateLimit(request, 'magic-link', user.email)
    if (!limit.allowed) return tooManyAttempts(form, limit, headers)
    const address = clientAddress(request)
    afterAnswer('owner code', async () => {
      // The sign-in mail, naming the action while user_metadata's code_for does (docs/security.md).
      await supabase.auth.updateUser({ data: { code_for: form } })
      await mailSignInLink(user.email, undefined, address).finally(() =>
        supabase.auth.updateUser({ data: { code_for: null } }),
      )
    })
    const message = `We emailed a 6-digit code to ${user.email}. Enter it here to confirm it is you.`
    return sent(form, message)
  }

  if (intent === 'sign-out-everywhere') {
    // Every session of the user ends; each is refused on its next request, not at token expiry.
    const { error } = await supabase.auth.signOut({ scope: 'global' })
    if (!error)
      afterAnswer('signed-out notice', () => queueSecurityNotice(user.id, 'signed_out_everywhere'))
    throw redirect('/sign-in?notice=signed-out-everywhere', { status: 303, headers })
  }

  if (intent === 'delete-account') {
    const submission = parseWithZod(formData, { schema: DeleteAccountSchema })
    if (submission.status !== 'success')
      return refusal(intent, submission.reply({ hideFields: PASSWORD_FIELDS }), badRequest)
    const refused = await ownerCheck(request, user, submission.value, headers, confirmSession)
    if (refused) return refusal(intent, submission.reply(refused.options), refused.init)
    const outcome = await deleteAccount(asUser, user)
    if (!outcome.ok) {
      const result = submission.reply({ formErrors: [outcome.message] })
      return refusal(intent, result, { status: 503, headers })
    }
    // The sessions died with the user; this clears the browser's cookies.
    await supabase.auth.signOut({ scope: 'local' })
    throw redirect('/account-deleted', { status: 303, headers })
  }

  throw new Response(UNKNOWN_FORM, { status: 400, headers })
}

/** The owner's proof (`ownerRefusal`) within its guessing budget: null, or the form's errors. */
async function ownerCheck(
  request: Request,
  user: SessionUser,
  proof: { currentPassword?: string; code?: string },
  headers: Headers,
  confirmSession: () => Promise<void>,
) {
  await confirmSession()
  const flow = proof.currentPassword ? 'password-check' : 'email-code'
  const limit = await hitAuthRateLimit(request, flow, user.email)
  const refusal = limit.allowed
    ? await ownerRefusal(user.email, proof, clientAddress(request))
    : { message: tooManyAttemptsMessage(limit.retryAfterSeconds) }
  if (!refusal) return null
  const init = limit.allowed ? { status: 400, headers } : tooManyAttemptsInit(limit, headers)
  return { options: { ...errorsOf(refusal), hideFields: PASSWORD_FIELDS }, init }
}
