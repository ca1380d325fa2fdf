import type { CheckoutStatus } from './checkout-status.server'

export const RECHECK_SECONDS = 5
export const MAX_RECHECKS = 12

export function nextRecheck(url: URL, status: CheckoutStatus): string | null {
  if (status !== 'confirming' && status !== 'open') return null
  const attempt = Number(url.searchParams.get('attempt')) || 0
  if (attempt >= MAX_RECHECKS) return null
  const next = new URLSearchParams(url.searchParams)
  next.set('attempt', String(attempt + 1))
  return `${url.pathname}?${next.toString()}`
}
