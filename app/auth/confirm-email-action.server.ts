import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from '@remix-run/node'

import { reply } from '~/lib/forms/form-reply'
import { readFormData } from '~/lib/server/http.server'

import { confirmWithCode, resendConfirmation } from './auth.server'
import { authFailureStatus, mailMinuteMessage } from './auth-errors'
import {
  hitAuthRateLimit,
  pausedCheckMessage,
  tooManyAttemptsInit,
  tooManyAttemptsMessage,
} from './rate-limits.server'
import { ConfirmCodeSchema, ResendConfirmationSchema } from './schemas'

/** The check-email pages' action: the mailed 6-digit code, or (after sign-up) "send it again". */
export async function handleConfirmEmail(
  request: Request,
  options: { after?: string; resend?: boolean } = {},
) {
  const formData = await readFormData(request)
  const intent = options.resend !== false && formData.get('intent') === 'resend' ? 'resend' : 'code'
  const schema = intent === 'resend' ? ResendConfirmationSchema : ConfirmCodeSchema
  const submission = parseWithZod(formData, { schema })
  const email = submission.status === 'success' ? submission.value.email : null
  const answer = (
    formError: string | null,
    notice: string | null,
    init: ResponseInit = { status: 400 },
  ) => reply(submission.reply(), { intent, formError, notice, email }, init)
  if (email === null) return answer(null, null)
  const flow = intent === 'resend' ? 'sign-up' : 'email-code'
  const limit = await hitAuthRateLimit(request, flow, email)
  // The mail's link still works: only the address's inbox has it.
  if (limit.paused && intent === 'code') {
    const message = pausedCheckMessage('email-code', limit.retryAfterSeconds)
    return answer(message, null, tooManyAttemptsInit(limit))
  }
  if (!limit.allowed)
    return answer(tooManyAttemptsMessage(limit.retryAfterSeconds), null, tooManyAttemptsInit(limit))

  if (intent === 'resend') {
    const { minute } = limit
    if (minute?.allowed === false)
      return answer(null, mailMinuteMessage(minute.retryAfterSeconds), tooManyAttemptsInit(minute))
    const headers = { 'Set-Cookie': await resendConfirmation(request, email) }
    const notice = `If ${email} is waiting to be confirmed, a new email is on its way.`
    return answer(null, notice, { headers })
  }
  const code = String(formData.get('code') ?? '').trim()
  const outcome = await confirmWithCode(request, email, code)
  if (outcome.error) {
    const init = { status: authFailureStatus(outcome.errorCode), headers: outcome.headers }
    return answer(outcome.error, null, init)
  }
  // A password set before the address was proven is gone: she chooses her own first.
  const after = outcome.choosePassword ? '/reset-password?notice=choose-password' : options.after
  const next = after ?? '/dashboard?notice=email-confirmed'
  throw redirect(next, { status: 303, headers: outcome.headers })
}
