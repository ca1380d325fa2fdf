/** The honeypot field of every public form: hidden from people, filled in by bots. */
export const HONEYPOT_FIELD = 'website'

/** True when the honeypot field of a form post or JSON body holds anything but blanks. */
export function isHoneypotFilled(input: unknown): boolean {
  let value: unknown
  if (input instanceof FormData) value = input.get(HONEYPOT_FIELD)
  else if (typeof input === 'object' && input !== null && Object.hasOwn(input, HONEYPOT_FIELD))
    value = (input as Record<string, unknown>)[HONEYPOT_FIELD]
  if (value === undefined || value === null) return false
  return typeof value !== 'string' || value.trim() !== ''
}
