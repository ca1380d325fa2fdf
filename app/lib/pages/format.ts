// Intl formatters are costly to build (dozens per payments page): one is kept per currency.
const moneyFormats = new Map<string, { format: Intl.NumberFormat; decimals: number }>()
const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' })

/** An amount in minor units: 2900 usd → "$29.00", 500 jpy → "¥500" (the currency's decimals). */
export function formatMoney(amountMinor: number, currency: string) {
  const code = currency.toUpperCase()
  let entry = moneyFormats.get(code)
  if (!entry) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code })
    entry = { format, decimals: format.resolvedOptions().maximumFractionDigits ?? 2 }
    moneyFormats.set(code, entry)
  }
  return entry.format.format(amountMinor / 10 ** entry.decimals)
}

/** Formats a timestamp as a date, e.g. "March 5, 2026", in UTC so server and browser agree. */
export function formatDate(value: string | null | undefined) {
  if (!value) return '—'
  const date = new Date(value)
  return Number.isNaN(date.getTime()) ? '—' : dateFormat.format(date)
}

/** A provider's link, only if http(s) and unbroken: `javascript:` and the like never become an href. */
export const httpUrl = (value: string | null | undefined) =>
  value && /^https?:\/\/[^\s\p{Cc}]+$/iu.test(value) ? value : null
