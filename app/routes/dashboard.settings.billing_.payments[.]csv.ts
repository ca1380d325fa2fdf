import type { LoaderFunctionArgs } from '@remix-run/node'

import { requireUser } from '~/auth/session.server'
import { formatDate, formatMoney } from '~/lib/pages/format'
import { getBillingOverview } from '~/subscriptions/billing-overview.server'
import { statusLabel } from '~/subscriptions/status'

/** A CSV field: quoted, its quotes doubled; a leading =, + or @ kept from being a formula. */
const field = (value: string) => `"${value.replace(/^[=+@]/, "'$&").replace(/"/g, '""')}"`

/** GET /dashboard/settings/billing/payments.csv: the signed-in user's whole payment history. */
export async function loader({ request }: LoaderFunctionArgs) {
  const { asUser, headers } = await requireUser(request)
  const { payments } = await getBillingOverview(asUser, 1, 1_000_000)
  const rows = payments.map((payment) => [
    formatDate(payment.created_at),
    payment.description ?? 'Payment',
    formatMoney(payment.amount, payment.currency),
    statusLabel(payment.status),
    payment.invoice_url ?? '',
  ])
  const lines = [['Date', 'Description', 'Amount', 'Status', 'Invoice'], ...rows]
  headers.set('Content-Type', 'text/csv; charset=utf-8')
  headers.set('Content-Disposition', 'attachment; filename="payment-history.csv"')
  headers.set('Cache-Control', 'no-store')
  return new Response(lines.map((line) => line.map(field).join(',')).join('\r\n') + '\r\n', {
    headers,
  })
}
