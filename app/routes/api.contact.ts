import type { ActionFunctionArgs } from '@remix-run/node'

import { CONTACT_THANK_YOU } from '~/contact/schema'
import { CONTACT_MAX_BODY_BYTES, hitContactRateLimit, submitContact } from '~/contact/submit.server'
import { toWireIssue, unreadableBodyIssue, type WireIssue } from '~/contact/wire-issues'
import {
  ACCEPTED_MEDIA_TYPES,
  formDataToObject,
  jsonNoStore,
  methodNotAllowed,
  readPayload,
} from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

const UNREADABLE = {
  json: 'The request body is not valid JSON',
  form: 'The form data could not be read',
}

function fail(status: number, message: string, headers?: HeadersInit) {
  return jsonNoStore({ success: false, message }, { status, headers })
}

function invalid(errors: WireIssue[]) {
  return jsonNoStore({ success: false, message: 'Validation failed', errors }, { status: 400 })
}

const onlyPost = () => methodNotAllowed('POST', { success: false, message: 'Method not allowed' })

export const loader = onlyPost

export const action = async ({ request }: ActionFunctionArgs) => {
  if (request.method !== 'POST') return onlyPost()
  try {
    const limit = await hitContactRateLimit(request)
    if (!limit.allowed) {
      return fail(429, 'Too many requests. Please try again later.', {
        'Retry-After': String(limit.retryAfterSeconds),
      })
    }
    const payload = await readPayload(request, CONTACT_MAX_BODY_BYTES)
    switch (payload.kind) {
      case 'unsupported-media-type':
        return fail(415, 'Content-Type must be application/json (or a form post)', {
          'Accept-Post': ACCEPTED_MEDIA_TYPES.join(', '),
        })
      case 'too-large':
        return fail(413, `Request body must be at most ${CONTACT_MAX_BODY_BYTES} bytes`)
      case 'malformed':
        return invalid([unreadableBodyIssue(UNREADABLE[payload.format])])
    }
    const input = payload.kind === 'form' ? formDataToObject(payload.value) : payload.value
    const outcome = await submitContact(input)
    if (outcome.kind === 'invalid') return invalid(outcome.issues.map(toWireIssue))
    return jsonNoStore({ success: true, message: CONTACT_THANK_YOU })
  } catch (error) {
    logger.error({ err: error }, 'contact: submission failed')
    return fail(500, 'An error occurred while processing your request')
  }
}
