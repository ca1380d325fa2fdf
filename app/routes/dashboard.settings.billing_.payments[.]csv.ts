import type { LoaderFunctionArgs } from '@remix-run/node'

import { requireUser } from '~/auth/session.server'
import { getBillingOverview } from '~/subscriptions/billing-overview.server'
import { paymentStatus, statusLabel } from '~/subscriptions/status'

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`

/** A text cell: one that starts as a formula would (OWASP: = + - @, tab, CR) gets a leading '. */
export const textCell = (value: string) => quoted(value.replace(/^[=+\-@\t\r]/, "'$&"))

const decimals = new Map<string, number>()

/** Minor units as a plain number in the currency's decimals (2900 usd → 29.00): not a formula. */
function amount(minor: number, currency: string) {
  if (!decimals.has(currency)) {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency })
    decimals.set(currency, format.resolvedOptions().maximumFractionDigits ?? 2)
  }
  const places = decimals.get(currency) ?? 2
  return (minor / 10 ** places).toFixed(places)
}

export async function loader({ request }: LoaderFunctionArgs) {
  const { asUser, headers } = await requireUser(request)
  const { payments } = await getBillingOverview(asUser, 1, 1_000_000)
  const rows = payments.map((payment) =>
    [
      new Date(payment.created_at).toISOString().slice(0, 10),
      textCell(payment.description ?? 'Payment'),
      amount(payment.amount, payment.currency),
      payment.currency.toUpperCase(),
      amount(payment.amount_refunded, payment.currency),
      textCell(statusLabel(paymentStatus(payment))),
      textCell(payment.provider_payment_id ?? ''),
      textCell(payment.invoice_url ?? ''),
    ].join(','),
  )
  const head = 'Date,Description,Amount,Currency,Refunded,Status,Invoice number,Invoice URL'
  const file = `payments-${new Date().toISOString().slice(0, 10)}.csv`
  headers.set('Content-Type', 'text/csv; charset=utf-8')
  headers.set('Content-Disposition', `attachment; filename="${file}"`)
  headers.set('Cache-Control', 'no-store')
  return new Response([head, ...rows].join('\r\n') + '\r\n', { headers })
}
