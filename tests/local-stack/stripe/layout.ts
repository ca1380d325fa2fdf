/** The Stripe stand-in's page shell, dates and card fields. */
import * as shared from '../http/page'

export { money } from '../http/page'

export const page = (title: string, body: string, options: { wide?: boolean } = {}) =>
  shared.page(title, 'Local Stripe emulator — test mode, no real payments', body, options)

/** A unix timestamp as a readable UTC date, e.g. "March 5, 2026". */
export function date(timestamp: number) {
  return new Date(timestamp * 1000).toLocaleDateString('en-US', {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    timeZone: 'UTC',
  })
}

/** The card fields of the checkout, portal and invoice pages (test cards: the README). */
export const CARD_FIELDS = `  <label for="cardNumber">Card number</label>
  <input id="cardNumber" name="cardNumber" inputmode="numeric" autocomplete="cc-number" placeholder="4242 4242 4242 4242" required>
  <label for="expiry">Expiration date</label>
  <input id="expiry" name="expiry" autocomplete="cc-exp" placeholder="MM / YY" value="12 / 34">
  <label for="cvc">CVC</label>
  <input id="cvc" name="cvc" inputmode="numeric" autocomplete="cc-csc" placeholder="123" value="123">`
