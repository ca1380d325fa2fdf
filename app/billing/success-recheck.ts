import type { CheckoutStatus } from './checkout-status.server'

/** Seconds between automatic reloads while a payment is being confirmed. */
export const RECHECK_SECONDS = 5
/** Reloads before the page stops and says where the result will show up. */
export const MAX_RECHECKS = 12

/**
 * The address of the next automatic reload of the success page, or null when the state is
 * final or the page has already reloaded `MAX_RECHECKS` times.
 */
export function nextRecheck(url: URL, status: CheckoutStatus): string | null {
  if (status !== 'confirming' && status !== 'open') return null
  const attempt = Number(url.searchParams.get('attempt')) || 0
  if (attempt >= MAX_RECHECKS) return null
  const next = new URLSearchParams(url.searchParams)
  next.set('attempt', String(attempt + 1))
  return `${url.pathname}?${next.toString()}`
}
