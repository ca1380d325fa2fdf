/** The honeypot field of every public form: hidden from people, filled in by bots. */
export const HONEYPOT_FIELD = 'website'

/** True when the honeypot field was filled in (a bot). */
export function isHoneypotFilled(formData: FormData) {
  const value = formData.get(HONEYPOT_FIELD)
  return typeof value === 'string' && value.trim() !== ''
}
