import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from '@remix-run/node'

import { reply } from '~/lib/forms/form-reply'
import { isHoneypotFilled } from '~/lib/forms/honeypot'
import { readFormData } from '~/lib/server/http.server'
import { queueSecurityNotice } from '~/notifications/delivery.server'

import { PASSWORD_SET_KEY, sendPasswordReset } from './auth.server'
import { authErrorMessage } from './auth-errors'
import { afterAnswer } from './mail-requests.server'
import { hitAuthRateLimit, tooManyAttemptsInit, tooManyAttemptsMessage } from './rate-limits.server'
import { clearRecoveryMark, isRecoveryRequest } from './recovery.server'
import { ForgotPasswordSchema, ResetPasswordSchema } from './schemas'
import { requireConfirmedUser } from './session.server'

const RECOVERY_ONLY =
  'Choosing a password without your current one needs the link from a password-reset email. Ask for a new link, or change your password in Account settings.'

/** /forgot-password: the same answer, in words and time, whether or not the account exists. */
export async function handleForgotPassword(request: Request) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: ForgotPasswordSchema })
  if (submission.status !== 'success') {
    return reply(submission.reply(), { sentTo: null, formError: null }, { status: 400 })
  }
  const { email } = submission.value
  const limit = await hitAuthRateLimit(request, 'password-reset', email)
  if (!limit.allowed) {
    const formError = tooManyAttemptsMessage(limit.retryAfterSeconds)
    return reply(submission.reply(), { sentTo: null, formError }, tooManyAttemptsInit(limit))
  }
  if (isHoneypotFilled(formData))
    return reply(submission.reply(), { sentTo: email, formError: null })
  const headers = { 'Set-Cookie': await sendPasswordReset(request, email) }
  const result = submission.reply({ resetForm: true })
  return reply(result, { sentTo: email, formError: null }, { headers })
}

/** Only in a recovery link's session, confirmed by the auth server; any other is refused (403). */
export async function handleResetPassword(request: Request) {
  const session = await requireConfirmedUser(request)
  const formData = await readFormData(request, { headers: session.headers })
  if (!(await isRecoveryRequest(request, session.user))) {
    return reply(null, { formError: RECOVERY_ONLY }, { status: 403, headers: session.headers })
  }
  const submission = parseWithZod(formData, { schema: ResetPasswordSchema })
  const result = (fieldErrors?: Record<string, string[]>) =>
    submission.reply({ hideFields: ['password', 'confirmPassword'], fieldErrors })
  if (submission.status !== 'success') {
    return reply(result(), { formError: null }, { status: 400, headers: session.headers })
  }
  // The session's own client: not refreshed again with a refresh token just rotated.
  const { error } = await session.supabase.auth.updateUser({
    password: submission.value.password,
    data: { [PASSWORD_SET_KEY]: true },
  })
  if (error) {
    const message = authErrorMessage(error)
    const onField = error.code === 'weak_password' || error.code === 'same_password'
    return reply(
      result(onField ? { password: [message] } : undefined),
      { formError: onField ? null : message },
      { status: 400, headers: session.headers },
    )
  }
  // Queued after the answer: the answer never waits for a mail.
  afterAnswer('password-changed notice', () =>
    queueSecurityNotice(session.user.id, 'password_changed'),
  )
  session.headers.append('Set-Cookie', await clearRecoveryMark())
  throw redirect('/dashboard?notice=password-updated', { status: 303, headers: session.headers })
}
