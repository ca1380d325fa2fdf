// Intl formatters are costly to build (a page of payments formats dozens of values), so one
// is kept per locale and currency.
const moneyFormats = new Map<string, { format: Intl.NumberFormat; decimals: number }>()
const dateFormats = new Map<string, Intl.DateTimeFormat>()

function moneyFormat(locale: string, currency: string) {
  const key = `${locale}|${currency}`
  let entry = moneyFormats.get(key)
  if (!entry) {
    const format = new Intl.NumberFormat(locale, { style: 'currency', currency })
    entry = { format, decimals: format.resolvedOptions().maximumFractionDigits ?? 2 }
    moneyFormats.set(key, entry)
  }
  return entry
}

/**
 * Formats an amount in minor units, e.g. 2900 usd -> "$29.00", 500 jpy -> "¥500" (the
 * currency's own number of decimals, as payment providers count them); negative amounts keep
 * their sign.
 */
export function formatMoney(amountMinor: number, currency: string, locale = 'en-US') {
  const { format, decimals } = moneyFormat(locale, currency.toUpperCase())
  return format.format(amountMinor / 10 ** decimals)
}

/** Formats a timestamp as a date, e.g. "March 5, 2026", in UTC so server and browser agree. */
export function formatDate(value: string | null | undefined, locale = 'en-US') {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return '—'
  let format = dateFormats.get(locale)
  if (!format) {
    format = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' })
    dateFormats.set(locale, format)
  }
  return format.format(date)
}
