import { parseWithZod } from '@conform-to/zod/v4'
import { redirect } from '@remix-run/node'

import { rememberAfterSignUp } from '~/auth/plan-intent.server'
import { reply } from '~/lib/forms/form-reply'
import { isHoneypotFilled } from '~/lib/forms/honeypot'
import { readFormData } from '~/lib/server/http.server'

import { signUp } from './auth.server'
import { mailMinuteMessage } from './auth-errors'
import { hitAuthRateLimit, tooManyAttemptsInit, tooManyAttemptsMessage } from './rate-limits.server'
import { SignUpSchema } from './schemas'

/** Sign-up: the same answer after the same work for any address; a plan chosen first is kept. */
export async function handleSignUp(request: Request) {
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: SignUpSchema })
  const result = () => submission.reply({ hideFields: ['password'] })
  if (submission.status !== 'success') {
    return reply(result(), { formError: null }, { status: 400 })
  }
  const { email, password, redirectTo } = submission.value
  const limit = await hitAuthRateLimit(request, 'sign-up', email)
  if (!limit.allowed) {
    const formError = tooManyAttemptsMessage(limit.retryAfterSeconds, 'sign-ups')
    return reply(result(), { formError }, tooManyAttemptsInit(limit))
  }
  const { minute } = limit
  if (minute?.allowed === false) {
    const formError = mailMinuteMessage(minute.retryAfterSeconds)
    return reply(result(), { formError }, tooManyAttemptsInit(minute))
  }
  const confirm = `/sign-up/confirm?${new URLSearchParams({ email })}`
  // Bots get the same answer as people, and no account.
  if (isHoneypotFilled(formData)) throw redirect(confirm, { status: 303 })
  const outcome = await signUp(request, email, password, redirectTo)
  const keep = await rememberAfterSignUp(redirectTo ?? '')
  if (keep) outcome.headers.append('Set-Cookie', keep)
  throw redirect(confirm, { status: 303, headers: outcome.headers })
}
