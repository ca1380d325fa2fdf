/**
 * Length rules of the contact form, shared by the page and POST /api/contact. Minimums
 * are the spec's; maximums are ours (see docs/contact.md). Lengths are counted after
 * trimming, in Unicode code points (zod 4 counts code points, so an emoji is one).
 *
 * Kept apart from the zod schema (`schema.ts`) so that the page can use them without
 * loading zod.
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
 * JavaScript (`schema.test.ts` holds them to the schema). The browser counts UTF-16 units,
 * so it is never more lenient about a maximum.
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
