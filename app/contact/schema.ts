import * as z from 'zod/mini'

import { storedText } from '~/lib/forms/stored-text'

import { CONTACT_LIMITS } from './limits'

/** The answer to every accepted submission (and, on purpose, to a filled honeypot). */
export const CONTACT_THANK_YOU =
  'Thank you for your message! We will get back to you within one business day.'

/** A required string: distinct messages for "missing" and "not text". */
function requiredString(label: string) {
  return storedText({
    error: (issue) =>
      issue.input === undefined ? `${label} is required` : `${label} must be text`,
  })
}

function text(label: string, { min, max }: { min: number; max: number }) {
  return requiredString(label).check(
    z.trim(),
    z.minLength(min, `${label} must be at least ${min} characters`),
    z.maxLength(max, `${label} must be at most ${max} characters`),
  )
}

/** The one contact schema: the page's action, the JSON API and the form in the browser use it. */
export const contactSchema = z.object(
  {
    firstName: text('First name', CONTACT_LIMITS.firstName),
    lastName: text('Last name', CONTACT_LIMITS.lastName),
    email: requiredString('Email').check(
      z.trim(),
      z.maxLength(
        CONTACT_LIMITS.email.max,
        `Email must be at most ${CONTACT_LIMITS.email.max} characters`,
      ),
      // A check (not `z.pipe(…, z.email())`) so that the address is trimmed before it is checked.
      z.email('Enter a valid email address'),
    ),
    company: text('Company', CONTACT_LIMITS.company),
    message: text('Message', CONTACT_LIMITS.message),
  },
  { error: 'The submission must be an object with the contact form fields' },
)

export type ContactMessage = z.infer<typeof contactSchema>
