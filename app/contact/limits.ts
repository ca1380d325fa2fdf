/**
 * Length rules of the contact form, shared by the page and POST /api/contact. Minimums
 * are the spec's; maximums are ours (see docs/contact.md). Lengths are counted after
 * trimming, in Unicode code points (zod 4 counts code points, so an emoji is one); the
 * browser's `maxlength` counts UTF-16 units, so it is never more lenient.
 */
export const CONTACT_LIMITS = {
  firstName: { min: 2, max: 100 },
  lastName: { min: 2, max: 100 },
  email: { max: 254 },
  company: { min: 2, max: 200 },
  message: { min: 10, max: 5000 },
} as const
