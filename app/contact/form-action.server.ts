import { parseWithZod } from '@conform-to/zod/v4'

import { reply } from '~/lib/forms/form-reply'
import { isHoneypotFilled } from '~/lib/forms/honeypot'
import { methodNotAllowed, readPayload } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { retryAfterText } from '~/lib/server/rate-limit.server'

import { deliverContactMessage } from './delivery.server'
import { CONTACT_THANK_YOU, contactSchema } from './schema'
import { CONTACT_MAX_BODY_BYTES, hitContactRateLimit } from './submit.server'

/** POST /api/contact's checks and delivery, answered as conform results for the /contact form. */
export async function handleContactForm(request: Request) {
  if (request.method !== 'POST') throw methodNotAllowed('POST', 'Method not allowed')
  const payload = await readPayload(request, CONTACT_MAX_BODY_BYTES)
  if (payload.kind === 'too-large') throw new Response('Your message is too long.', { status: 413 })
  if (payload.kind !== 'form')
    throw new Response('Please submit the contact form.', { status: 400 })

  const submission = parseWithZod(payload.value, { schema: contactSchema })
  const limit = await hitContactRateLimit(request)
  if (!limit.allowed) {
    const message = `You have sent too many messages. Please try again in ${retryAfterText(limit.retryAfterSeconds)}.`
    return reply(
      submission.reply({ formErrors: [message] }),
      { status: 'error' },
      { status: 429, headers: { 'Retry-After': String(limit.retryAfterSeconds) } },
    )
  }
  if (isHoneypotFilled(payload.value)) {
    // Logged without its content.
    logger.info('contact: honeypot filled, submission dropped')
    return reply(null, { status: 'sent', message: CONTACT_THANK_YOU })
  }
  if (submission.status !== 'success')
    return reply(submission.reply(), { status: 'error' }, { status: 400 })
  try {
    await deliverContactMessage(submission.value)
  } catch (error) {
    logger.error({ err: error }, 'contact: submission failed')
    const message = 'We could not send your message. Please try again in a moment.'
    return reply(submission.reply({ formErrors: [message] }), { status: 'error' }, { status: 500 })
  }
  return reply(null, { status: 'sent', message: CONTACT_THANK_YOU })
}
