import type { LoaderFunctionArgs } from '@remix-run/node'

import { requireUser } from '~/auth/session.server'
import { formatDate, formatMoney } from '~/lib/pages/format'
import { getBillingOverview } from '~/subscriptions/billing-overview.server'
import { statusLabel } from '~/subscriptions/status'

const quoted = (value: string) => `"${value.replace(/"/g, '""')}"`

/** A text cell: one that starts as a formula would (OWASP: = + - @, tab, CR) gets a leading '. */
export const textCell = (value: string) => quoted(value.replace(/^[=+\-@\t\r]/, "'$&"))

/** GET /dashboard/settings/billing/payments.csv: the signed-in user's whole payment history. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { asUser, headers } = await requireUser(request)
  const { payments } = await getBillingOverview(asUser, 1, 1_000_000)
  const rows = payments.map((payment) =>
    [
      textCell(formatDate(payment.created_at)),
      textCell(payment.description ?? 'Payment'),
      // Ours, from a number: a refund's leading minus is not a formula.
      quoted(formatMoney(payment.amount, payment.currency)),
      textCell(statusLabel(payment.status)),
      textCell(payment.invoice_url ?? ''),
    ].join(','),
  )
  const head = ['Date', 'Description', 'Amount', 'Status', 'Invoice'].map(textCell).join(',')
  headers.set('Content-Type', 'text/csv; charset=utf-8')
  headers.set('Content-Disposition', 'attachment; filename="payment-history.csv"')
  headers.set('Cache-Control', 'no-store')
  return new Response([head, ...rows].join('\r\n') + '\r\n', { headers })
}
