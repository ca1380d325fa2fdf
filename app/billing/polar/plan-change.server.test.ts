import { describe, expect, it } from 'vitest'

import { nextInvoice } from '../plans'

const DAY = 24 * 60 * 60 * 1000
const start = Date.UTC(2026, 10, 1)
const period = {
  start: new Date(start).toISOString(),
  end: new Date(start + 30 * DAY).toISOString(),
}

describe('nextInvoice (Polar’s time proration)', () => {
  it('credits the unused share of the current price and charges that share of the new one, each rounded', () => {
    // A third of the period left: Pro → Starter.
    const preview = nextInvoice(period, 2900, 900, start + 20 * DAY)
    expect(preview).toEqual({
      credit: 967, // 2900 / 3 = 966.67
      charge: 300,
      nextInvoiceAmount: 900 + 300 - 967,
      carriedCredit: 0,
      nextInvoiceDate: period.end,
    })
  })

  it('never bills a negative invoice: a larger credit is carried over', () => {
    const preview = nextInvoice(period, 2900, 900, start)
    expect(preview).toMatchObject({
      credit: 2900,
      charge: 900,
      nextInvoiceAmount: 0,
      carriedCredit: 1100,
    })
  })

  it('charges the difference for an upgrade', () => {
    const preview = nextInvoice(period, 900, 2900, start + 15 * DAY)
    expect(preview).toMatchObject({ credit: 450, charge: 1450, nextInvoiceAmount: 3900 })
  })

  it('prorates nothing once the period has ended, or for an empty period', () => {
    const none = { credit: 0, charge: 0 }
    const ended = nextInvoice(period, 2900, 900, start + 31 * DAY)
    expect(ended).toMatchObject({ ...none, nextInvoiceAmount: 900 })
    expect(nextInvoice({ start: period.start, end: period.start }, 2900, 900, start)).toMatchObject(
      none,
    )
  })
})
