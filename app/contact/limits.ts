/**
 * Minimums are the spec's, maximums ours (docs/contact.md). Counted after trimming in code
 * points (zod 4); the browser's `maxlength` counts UTF-16 units, so it is never more lenient.
 */
export const CONTACT_LIMITS = {
  firstName: { min: 2, max: 100 },
  lastName: { min: 2, max: 100 },
  email: { max: 254 },
  company: { min: 2, max: 200 },
  message: { min: 10, max: 5000 },
} as const
