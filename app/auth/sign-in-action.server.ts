import { parseWithZod } from '@conform-to/zod/v4'
import { redirect, redirectDocument } from '@remix-run/node'

import { reply, UNKNOWN_FORM } from '~/lib/forms/form-reply'
import { isHoneypotFilled } from '~/lib/forms/honeypot'
import { readFormData } from '~/lib/server/http.server'
import { clientAddress } from '~/lib/server/rate-limit.server'

import { callbackUrl, mailSignInLink, signInWithPassword } from './auth.server'
import { authErrorMessage, authFailureStatus } from './auth-errors'
import { markLinkRequested } from './link-origin.server'
import { afterAnswer } from './mail-requests.server'
import {
  hitAuthRateLimit,
  pausedCheckMessage,
  tooManyAttemptsInit,
  tooManyAttemptsMessage,
} from './rate-limits.server'
import { safeNextPath } from './safe-next-path'
import { MagicLinkSchema, SignInSchema } from './schemas'
import { createSupabaseServerClient } from './session.server'

type Intent = 'password' | 'magic-link' | 'oauth'

/** Beside conform's result: the form, its message, an address to offer a link or mail to. */
function fields(
  intent: Intent,
  formError: string | null,
  linkFor: string | null = null,
  unconfirmedEmail: string | null = null,
) {
  return { intent, formError, linkFor, unconfirmedEmail }
}

/** Password (the default), magic link or GitHub; each valid attempt is rate limited first. */
export async function handleSignIn(request: Request) {
  const formData = await readFormData(request)
  const intent = formData.get('intent')
  const next = safeNextPath(formData.get('redirectTo'), '/dashboard')
  if (intent === 'oauth') return signInWithGitHub(request, next)
  if (intent === 'magic-link') return mailMagicLink(request, formData, next)
  if (intent !== null && intent !== 'password')
    return reply(null, fields('password', UNKNOWN_FORM), { status: 400 })
  return signInWithPasswordForm(request, formData, next)
}

async function signInWithGitHub(request: Request, next: string) {
  const { supabase, headers } = createSupabaseServerClient(request)
  const { data, error } = await supabase.auth.signInWithOAuth({
    provider: 'github',
    options: { redirectTo: callbackUrl(next) },
  })
  if (!error && data.url) throw redirect(data.url, { status: 303, headers })
  return reply(null, fields('oauth', authErrorMessage(error)), { status: 400, headers })
}

async function mailMagicLink(request: Request, formData: FormData, next: string) {
  const submission = parseWithZod(formData, { schema: MagicLinkSchema })
  if (submission.status !== 'success')
    return reply(submission.reply(), fields('magic-link', null), { status: 400 })
  const limit = await hitAuthRateLimit(request, 'magic-link', submission.value.email)
  if (!limit.allowed) {
    const message = tooManyAttemptsMessage(limit.retryAfterSeconds)
    return reply(submission.reply(), fields('magic-link', message), tooManyAttemptsInit(limit))
  }
  if (isHoneypotFilled(formData)) throw redirect('/sign-in/confirm', { status: 303 })
  const { email } = submission.value
  const confirm = new URLSearchParams({ email })
  if (limit.minute?.allowed === false) {
    confirm.set('wait', String(limit.minute.retryAfterSeconds))
    throw redirect(`/sign-in/confirm?${confirm}`, { status: 303 })
  }
  // After the answer: the same answer at the same time for any address (docs/security.md).
  const address = clientAddress(request)
  afterAnswer('magic link', () => mailSignInLink(email, next, address))
  const headers = { 'Set-Cookie': await markLinkRequested(request, email) }
  throw redirect(`/sign-in/confirm?${confirm}`, { status: 303, headers })
}

async function signInWithPasswordForm(request: Request, formData: FormData, next: string) {
  const submission = parseWithZod(formData, { schema: SignInSchema })
  const result = () => submission.reply({ hideFields: ['password'] })
  if (submission.status !== 'success')
    return reply(result(), fields('password', null), { status: 400 })
  const limit = await hitAuthRateLimit(request, 'sign-in', submission.value.email)
  if (!limit.allowed) {
    // The password is not checked, even the right one; the emailed link still works for the owner.
    const message = limit.paused
      ? pausedCheckMessage('sign-in', limit.retryAfterSeconds)
      : tooManyAttemptsMessage(limit.retryAfterSeconds)
    const init = tooManyAttemptsInit(limit)
    return reply(result(), fields('password', message, submission.value.email), init)
  }
  // Bots get the answer a wrong password gets, and no session.
  if (isHoneypotFilled(formData)) {
    const message = authErrorMessage({ code: 'invalid_credentials' })
    return reply(result(), fields('password', message), { status: 400 })
  }
  const { email, password = '' } = submission.value
  const outcome = await signInWithPassword(request, email, password)
  if (outcome.error) {
    // The right password for an account still waiting for its confirmation: the page offers
    // to send the confirmation again (Supabase Auth says so only after checking the password).
    const unconfirmedEmail = outcome.errorCode === 'email_not_confirmed' ? email : null
    const init = { status: authFailureStatus(outcome.errorCode), headers: outcome.headers }
    return reply(result(), fields('password', outcome.error, null, unconfirmedEmail), init)
  }
  // A document load, as without JavaScript: the next page may be a download (the payments CSV).
  throw redirectDocument(next, { status: 303, headers: outcome.headers })
}
