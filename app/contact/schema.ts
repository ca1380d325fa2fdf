import { z } from 'zod'

/**
 * Length rules of the contact form, shared by the page and POST /api/contact. Minimums
 * are the spec's; maximums are ours (see docs/contact.md). Lengths are counted after
 * trimming, in Unicode code points (zod 4 counts code points, so an emoji is one).
 */
export const CONTACT_LIMITS = {
  firstName: { min: 2, max: 100 },
  lastName: { min: 2, max: 100 },
  email: { max: 254 },
  company: { min: 2, max: 200 },
  message: { min: 10, max: 5000 },
} as const

/**
 * The same rules as HTML attributes, so that the browser checks them even without
 * JavaScript. Written out because conform's getZodConstraint cannot read string lengths
 * from this zod version. The browser counts UTF-16 units, so it is never more lenient.
 */
export const contactConstraint = {
  firstName: { required: true, ...lengths(CONTACT_LIMITS.firstName) },
  lastName: { required: true, ...lengths(CONTACT_LIMITS.lastName) },
  email: { required: true, maxLength: CONTACT_LIMITS.email.max },
  company: { required: true, ...lengths(CONTACT_LIMITS.company) },
  message: { required: true, ...lengths(CONTACT_LIMITS.message) },
}

function lengths({ min, max }: { min: number; max: number }) {
  return { minLength: min, maxLength: max }
}

/** The hidden field that people never see and simple bots fill in. */
export { HONEYPOT_FIELD } from '~/lib/honeypot'

/** The answer to every accepted submission (and, on purpose, to a filled honeypot). */
export const CONTACT_THANK_YOU =
  'Thank you for your message! We will get back to you within one business day.'

/** A required string: distinct messages for "missing" and "not text". */
function requiredString(label: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined ? `${label} is required` : `${label} must be text`,
  })
}

function text(label: string, { min, max }: { min: number; max: number }) {
  return requiredString(label)
    .trim()
    .min(min, `${label} must be at least ${min} characters`)
    .max(max, `${label} must be at most ${max} characters`)
}

/** The one contact schema: the page's form (conform) and the JSON API both parse with it. */
export const contactSchema = z.object(
  {
    firstName: text('First name', CONTACT_LIMITS.firstName),
    lastName: text('Last name', CONTACT_LIMITS.lastName),
    email: requiredString('Email')
      .trim()
      .max(CONTACT_LIMITS.email.max, `Email must be at most ${CONTACT_LIMITS.email.max} characters`)
      // `.check` (not `z.email()`) so that the address is trimmed before it is checked.
      .check(z.email('Enter a valid email address')),
    company: text('Company', CONTACT_LIMITS.company),
    message: text('Message', CONTACT_LIMITS.message),
  },
  { error: 'The submission must be an object with the contact form fields' },
)

/** A validated, trimmed contact submission. */
export type ContactMessage = z.infer<typeof contactSchema>
