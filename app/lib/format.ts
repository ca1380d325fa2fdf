/** Formats an amount in minor units, e.g. 2900 usd -> "$29.00"; negative amounts keep their sign. */
export function formatMoney(amountMinor: number, currency: string, locale = 'en-US') {
  return new Intl.NumberFormat(locale, {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amountMinor / 100)
}

/** Formats a timestamp as a date, e.g. "March 5, 2026", in UTC so server and browser agree. */
export function formatDate(value: string | null | undefined, locale = 'en-US') {
  if (!value) return '—'
  const date = new Date(value)
  if (Number.isNaN(date.getTime())) return '—'
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(date)
}
