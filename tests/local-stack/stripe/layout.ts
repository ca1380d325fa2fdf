/** The HTML shell shared by the hosted pages and the admin pages. */
import { escapeHtml } from './http'

const styles = `
  body { font-family: system-ui, sans-serif; margin: 0; background: #f6f9fc; color: #1a1f36; }
  main { max-width: 40rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px;
    box-shadow: 0 2px 8px rgba(0,0,0,.08); }
  main.wide { max-width: 72rem; }
  .banner { background: #fff4e5; color: #7a4b00; padding: .5rem 1rem; font-size: .875rem; text-align: center; }
  label { display: block; margin-top: 1rem; font-weight: 600; font-size: .875rem; }
  input, select, textarea { display: block; width: 100%; box-sizing: border-box; padding: .5rem;
    margin-top: .25rem; font: inherit; border: 1px solid #c1c9d2; border-radius: 4px; }
  button { margin-top: 1rem; padding: .6rem 1.2rem; font: inherit; font-weight: 600; border: 0;
    border-radius: 4px; background: #635bff; color: #fff; cursor: pointer; }
  button.secondary { background: #e3e8ee; color: #1a1f36; }
  button.danger { background: #df1b41; }
  [role=alert] { background: #fde8ec; color: #a41c33; padding: .75rem; border-radius: 4px; margin-top: 1rem; }
  [role=status] { background: #e6f6ec; color: #0e6245; padding: .75rem; border-radius: 4px; margin-top: 1rem; }
  table { border-collapse: collapse; width: 100%; font-size: .85rem; }
  th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e3e8ee; vertical-align: top; }
  pre { white-space: pre-wrap; word-break: break-all; margin: 0; max-height: 8rem; overflow: auto; }
  .amount { font-size: 2rem; font-weight: 700; }
  .muted { color: #697386; }
  section { border-top: 1px solid #e3e8ee; margin-top: 1.5rem; padding-top: 1rem; }
`

/** A complete page; `body` must already be escaped. */
export function page(title: string, body: string, options: { wide?: boolean } = {}) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<p class="banner">Local Stripe emulator — test mode, no real payments</p>
<main${options.wide ? ' class="wide"' : ''}>
${body}
</main>
</body>
</html>`
}

/** Formats minor units, e.g. 2900 usd → "$29.00". */
export function money(amount: number, currency: string) {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amount / 100)
}

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
