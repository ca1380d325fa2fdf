/**
 * Formats an amount in minor units, e.g. 2900 usd -> "$29.00", 500 jpy -> "¥500" (the
 * currency's own number of decimals, as Stripe and Polar count them); negative amounts keep
 * their sign.
 */
export function formatMoney(amountMinor: number, currency: string, locale = 'en-US') {
  const format = new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.toUpperCase(),
  })
  const decimals = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(amountMinor / 10 ** decimals)
}

/** Formats a timestamp as a date, e.g. "March 5, 2026", in UTC so server and browser agree. */
export function formatDate(value: string | null | undefined, locale = 'en-US') {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return '—'
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date)
}
