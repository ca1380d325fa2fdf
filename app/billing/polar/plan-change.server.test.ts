import { expect, it } from 'vitest'

import { nextInvoice } from '../plans'

const DAY = 24 * 60 * 60 * 1000
const start = Date.UTC(2026, 10, 1)
const [from, end] = [new Date(start).toISOString(), new Date(start + 30 * DAY).toISOString()]
const [PRO, STARTER] = [2900, 900]

// Polar's time proration over a 30-day period; a negative invoice is never billed.
it.each<[string, string, number, number, number, number[]]>([
  // A third of the period left, Pro → Starter: 2900 / 3 = 966.67 → 967; 900 + 300 - 967.
  ['rounds the unused share: credit and charge', end, PRO, STARTER, 20, [967, 300, 233, 0]],
  ['carries over a credit larger than the invoice', end, PRO, STARTER, 0, [2900, 900, 0, 1100]],
  ['charges the difference for an upgrade', end, STARTER, PRO, 15, [450, 1450, 3900, 0]],
  ['prorates nothing once the period has ended', end, PRO, STARTER, 31, [0, 0, 900, 0]],
  ['prorates nothing for an empty period', from, PRO, STARTER, 0, [0, 0, 900, 0]],
])('nextInvoice %s', (_, to, current, target, day, [credit, charge, amount, carried]) => {
  expect(nextInvoice({ start: from, end: to }, current, target, start + day * DAY)).toEqual({
    credit,
    charge,
    nextInvoiceAmount: amount,
    carriedCredit: carried,
    nextInvoiceDate: to,
  })
})
