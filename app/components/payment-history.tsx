import { formatDate, formatMoney, httpUrl } from '~/lib/pages/format'
import type { PaymentView } from '~/subscriptions/billing-overview.server'
import { paymentStatus, statusLabel } from '~/subscriptions/status'

/** The invoice's hosted page, in a new tab; for a past-due subscription's failed payment, "Pay" there. */
function InvoiceLink({ url, pay }: { url: string | null; pay: boolean }) {
  const href = httpUrl(url)
  if (!href) return <span className="text-slate-500">Not available yet</span>
  const style = pay ? 'text-red-800 underline hover:no-underline' : 'text-brand-700 hover:underline'
  return (
    <a href={href} className={`font-semibold ${style}`} rel="noreferrer" target="_blank">
      {pay ? 'Pay' : 'View invoice'}
    </a>
  )
}

/** A payment's status, what of it was refunded and any dispute; a failed one stands out (with words, not colour alone). */
function PaymentStatus({ payment }: { payment: PaymentView }) {
  const { status, amount_refunded: refunded, dispute_status: dispute } = payment
  return (
    <span className={status === 'failed' ? 'font-semibold text-red-700' : 'text-slate-700'}>
      {statusLabel(paymentStatus(payment))}
      {refunded > 0 && ` (${formatMoney(refunded, payment.currency)})`}
      {dispute && `, disputed: ${statusLabel(dispute).toLowerCase()}`}
    </span>
  )
}

const COLUMNS = ['Date', 'Description', 'Amount', 'Status', 'Invoice'] as const

/** The billing history: a table from `sm` up, cards on phones (five columns do not fit). */
export function PaymentHistory({
  payments,
  payable = false,
}: {
  payments: PaymentView[]
  /** The subscription is past due: its failed invoices can be paid. */
  payable?: boolean
}) {
  const pay = (payment: PaymentView) => payable && payment.status === 'failed'
  return (
    <>
      <ul className="divide-y divide-slate-100 sm:hidden" aria-label="Payments">
        {payments.map((payment) => (
          <li key={payment.id} className="py-3 text-sm">
            <div className="flex items-baseline justify-between gap-3">
              <span className="font-medium text-slate-900">
                {formatMoney(payment.amount, payment.currency)}
              </span>
              <span className="text-slate-600">{formatDate(payment.created_at)}</span>
            </div>
            <p className="mt-1 text-slate-700">{payment.description ?? 'Payment'}</p>
            <div className="mt-1 flex items-baseline justify-between gap-3">
              <PaymentStatus payment={payment} />
              <InvoiceLink url={payment.invoice_url} pay={pay(payment)} />
            </div>
          </li>
        ))}
      </ul>
      <table className="hidden w-full text-left text-sm sm:table">
        <thead className="text-slate-600">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="py-2 pr-4 font-medium last:pr-0">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {payments.map((payment) => (
            <tr key={payment.id}>
              <td className="py-2 pr-4">{formatDate(payment.created_at)}</td>
              <td className="py-2 pr-4">{payment.description ?? 'Payment'}</td>
              <td className="py-2 pr-4">{formatMoney(payment.amount, payment.currency)}</td>
              <td className="py-2 pr-4">
                <PaymentStatus payment={payment} />
              </td>
              <td className="py-2">
                <InvoiceLink url={payment.invoice_url} pay={pay(payment)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  )
}
