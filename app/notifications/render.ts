import { nextInvoice, PLAN_DEFINITIONS } from '~/billing/plans'
import { formatDate, formatMoney, httpUrl } from '~/lib/pages/format'
import type { PaymentRow } from '~/subscriptions/types'

import { MAIL_KINDS, type MailKind, NOTIFICATION_LABELS } from './kinds'
import type { OutgoingMail } from './mailer.server'

export const PRODUCT_NAME = 'Subscribely'

/** One queued mail as the outbox holds it: what it is about, not its text. */
export interface QueuedMail {
  kind: MailKind
  to: string
  data: Record<string, unknown>
}

/** The payment a receipt is about, read when the mail is delivered (its invoice link may be newer). */
export type ReceiptPayment = Pick<
  PaymentRow,
  'amount' | 'currency' | 'description' | 'invoice_url' | 'created_at'
>

export interface RenderContext {
  /** The app's public origin (SITE_URL): every link is built from it. */
  siteUrl: string
  /** For a receipt: its payment row now (null when it no longer exists). */
  payment?: ReceiptPayment | null
}

export type RenderedMail = Omit<OutgoingMail, 'to'>

type Block = string | { label: string; url: string }

const text = (data: Record<string, unknown>, key: string) => {
  const value = data[key]
  return typeof value === 'string' && value.trim() !== '' ? value : null
}
const num = (data: Record<string, unknown>, key: string) => {
  const value = data[key]
  return typeof value === 'number' && Number.isFinite(value) ? value : null
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
}
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char])

function compose(subject: string, footer: string, blocks: Block[]): RenderedMail {
  const textBody = [
    ...blocks.map((block) => (typeof block === 'string' ? block : `${block.label}: ${block.url}`)),
    '—',
    footer,
  ].join('\n\n')
  const html = [
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family: system-ui, sans-serif; line-height: 1.5; color: #0f172a; max-width: 36rem; margin: 0 auto; padding: 1rem;">',
    `<p style="font-weight: 600;">${escapeHtml(PRODUCT_NAME)}</p>`,
    ...blocks.map((block) =>
      typeof block === 'string'
        ? `<p style="white-space: pre-line;">${escapeHtml(block)}</p>`
        : `<p><a href="${escapeHtml(block.url)}">${escapeHtml(block.label)}</a></p>`,
    ),
    `<hr><p style="font-size: 0.875rem; color: #475569;">${escapeHtml(footer)}</p>`,
    '</body></html>',
  ].join('\n')
  return { subject, text: `${textBody}\n`, html }
}

/** A subscription's catalog plan (for its cycle) and next invoice, "$48.99 on April 1, 2026",
 * prorated by this period's change (`old_plan` at `changed_at`): as billing and mails say. */
export function upcomingInvoice(data: Record<string, unknown>) {
  const find = (key: string) => PLAN_DEFINITIONS.find((item) => item.name === text(data, key))
  const end = text(data, 'next_charge_at') ?? text(data, 'current_period_end') ?? ''
  const plan = find('plan_name')
  if (!plan || (text(data, 'billing_cycle') ?? plan.interval) !== plan.interval) return null
  // No change this period prorates nothing: as if changed at the period's end.
  const at = Date.parse(text(data, 'changed_at') ?? '') || Date.parse(end)
  const period = { start: text(data, 'period_start') ?? '', end }
  const { nextInvoiceAmount } = nextInvoice(
    period,
    (find('old_plan') ?? plan).amount,
    plan.amount,
    at,
  )
  return { plan, next: `${formatMoney(nextInvoiceAmount, plan.currency)} on ${formatDate(end)}` }
}

/** The next invoice, or its date when the catalog does not price it. */
function nextCharge(data: Record<string, unknown>) {
  const at = text(data, 'next_charge_at')
  return at && (upcomingInvoice(data)?.next ?? `on ${formatDate(at)}`)
}

/** Rendered at delivery, so a receipt has a later invoice link; null once the payment is gone. */
export function renderMail(mail: QueuedMail, context: RenderContext): RenderedMail | null {
  const { data } = mail
  const link = (path: string) => new URL(path, context.siteUrl).toString()
  const billing = { label: 'Open billing', url: link('/dashboard/settings/billing') }
  const preference = MAIL_KINDS[mail.kind]
  const footer = preference
    ? `You get this mail because “${NOTIFICATION_LABELS[preference].label}” is on in your ${PRODUCT_NAME} settings. Choose which mails you get: ${link('/dashboard/settings/notifications')}`
    : `Sent from the contact form at ${link('/contact')}.`
  const notYou: Block[] = [
    'If you did this, there is nothing else to do. If you did not, secure your account now:',
    { label: 'Reset your password', url: link('/forgot-password') },
    { label: 'Contact us', url: link('/contact') },
  ]
  const plan = text(data, 'plan_name')
  const planLabel = plan ? `Your ${plan} subscription` : 'Your subscription'

  switch (mail.kind) {
    case 'payment_receipt': {
      const payment = context.payment
      if (!payment) return null
      const amount = formatMoney(payment.amount, payment.currency)
      const invoice = httpUrl(payment.invoice_url)
      return compose(`Receipt for your ${PRODUCT_NAME} payment of ${amount}`, footer, [
        `Thank you. We received your payment of ${amount} on ${formatDate(payment.created_at)}${
          payment.description ? ` for ${payment.description}` : ''
        }.`,
        invoice
          ? { label: 'View your invoice', url: invoice }
          : 'Your invoice is being prepared; it will appear in your billing history.',
        { label: 'Billing history', url: link('/dashboard/settings/billing') },
      ])
    }
    case 'payment_failed': {
      const amount = num(data, 'amount')
      const currency = text(data, 'currency')
      const invoice = httpUrl(text(data, 'invoice_url'))
      const what = amount !== null && currency ? ` of ${formatMoney(amount, currency)}` : ''
      // As the pages say it: "we will retry on …" when the provider named the day.
      const retryAt = text(data, 'retry_at')
      const retry = retryAt ? ` We will retry on ${formatDate(retryAt)}.` : ''
      return compose(`Your ${PRODUCT_NAME} payment did not go through`, footer, [
        `We could not collect your subscription payment${what}.${retry} Your subscription stays on while we try again, but please update your payment method so that it is not interrupted.`,
        { label: 'Update your payment method', url: billing.url },
        ...(invoice ? [{ label: 'Or pay the invoice now', url: invoice }] : []),
      ])
    }
    case 'subscription_canceled': {
      const endsAt = text(data, 'ends_at')
      return compose(`${planLabel} will end${endsAt ? ` on ${formatDate(endsAt)}` : ''}`, footer, [
        `${planLabel} has been canceled. You keep access until ${
          endsAt ? formatDate(endsAt) : 'the end of the period you paid for'
        }, and you will not be charged again.`,
        'Changed your mind? You can resume it from billing before then.',
        billing,
      ])
    }
    case 'subscription_ended':
      return compose(`${planLabel} has ended`, footer, [
        `${planLabel} ended on ${formatDate(text(data, 'ended_at') ?? new Date().toISOString())}. You will not be charged again; your payment history stays in your account.`,
        { label: 'Subscribe again', url: link('/pricing') },
      ])
    case 'plan_changed': {
      const from = text(data, 'old_plan')
      const charge = nextCharge(data)
      return compose(
        plan ? `Your ${PRODUCT_NAME} plan is now ${plan}` : `Your ${PRODUCT_NAME} plan was changed`,
        footer,
        [
          `Your subscription changed${from ? ` from ${from}` : ''} to ${plan ?? 'a new plan'}.`,
          charge
            ? `Your next invoice: ${charge}, the difference for the rest of this period included.`
            : 'The difference for the rest of this period is settled on your next invoice.',
          billing,
        ],
      )
    }
    case 'subscription_resumed': {
      const charge = nextCharge(data)
      return compose(`${planLabel} continues`, footer, [
        `${planLabel} is no longer set to end: it renews as before.`,
        charge ? `Your next invoice: ${charge}.` : 'It renews at the end of the current period.',
        billing,
      ])
    }
    case 'payment_refunded': {
      const money = (key: string) =>
        formatMoney(num(data, key) ?? 0, text(data, 'currency') ?? 'usd')
      const paid = num(data, 'paid') ? `${money('paid')} ` : ''
      const total = (num(data, 'refunded_total') ?? 0) > (num(data, 'amount') ?? 0)
      return compose(`${money('amount')} refunded to you`, footer, [
        `We refunded ${money('amount')} of your ${paid}${text(data, 'description') ?? 'payment'}${total ? `; ${money('refunded_total')} of it is refunded in all` : ''}. It reaches your card or account in 5 to 10 business days.`,
        billing,
      ])
    }
    case 'customer_email':
      return null
    case 'account_deleted': {
      const canceled = text(data, 'canceled_plan')
      const at = text(data, 'deleted_at')
      return compose(
        `Your ${PRODUCT_NAME} account was deleted`,
        `This is the last mail we send to this address about that account.`,
        [
          `Your ${PRODUCT_NAME} account (${mail.to}) was deleted${at ? ` on ${formatDate(at)}` : ''}, as you asked, with its profile and payment history.`,
          canceled
            ? `${canceled === 'subscription' ? 'Your subscription' : `Your ${canceled} subscription`} was canceled with it: there will be no further charges.`
            : 'You had no subscription that could charge you: there will be no charges.',
          `If you did not ask for this, or want to come back, write to us: ${link('/contact')}`,
        ],
      )
    }
    case 'contact_message': {
      const [first, last, email, company] = ['firstName', 'lastName', 'email', 'company'].map(
        (key) => text(data, key) ?? '',
      )
      const received = text(data, 'received_at')
      return {
        // The subject is a header: one line, whatever the fields hold.
        ...compose(`Contact form: ${first} ${last}, ${company}`.replace(/\s+/g, ' '), footer, [
          `${first} ${last} <${email}> (${company}) wrote${received ? ` on ${formatDate(received)}` : ''}:`,
          text(data, 'message') ?? '',
          'Reply to this mail to answer them.',
        ]),
        replyTo: email,
      }
    }
    case 'contact_receipt':
      return compose(`We received your message to ${PRODUCT_NAME}`, footer, [
        // Nothing the sender typed: anyone may give any address, so it carries no text of theirs.
        `Thank you for writing to us. We answer every message within one business day, by a reply to this address.`,
        'If you did not write to us, you can ignore this mail.',
      ])
    case 'password_changed':
      return compose(`Your ${PRODUCT_NAME} password was changed`, footer, [
        `The password of your ${PRODUCT_NAME} account (${mail.to}) was just changed.`,
        ...notYou,
      ])
    case 'email_changed': {
      const oldEmail = text(data, 'old_email') ?? ''
      const newEmail = text(data, 'new_email') ?? mail.to
      const toOld = mail.to.toLowerCase() === oldEmail.toLowerCase()
      return compose(`Your ${PRODUCT_NAME} sign-in email was changed`, footer, [
        toOld
          ? `The sign-in email of your ${PRODUCT_NAME} account was changed from ${oldEmail} to ${newEmail}. This address no longer signs in.`
          : `${newEmail} is now the sign-in email of your ${PRODUCT_NAME} account (it was ${oldEmail}).`,
        ...notYou,
      ])
    }
    case 'signed_out_everywhere':
      return compose(`You were signed out of ${PRODUCT_NAME} everywhere`, footer, [
        `Every session of your ${PRODUCT_NAME} account (${mail.to}) was just signed out, on every device. Sign in again where you need to.`,
        { label: 'Sign in', url: link('/sign-in') },
        ...notYou,
      ])
    case 'attempts_limited': {
      // What was paused and for how long, and the way in that still works (the emailed link).
      const minutes = num(data, 'minutes') ?? 15
      const pause = `${minutes} minute${minutes === 1 ? '' : 's'}`
      const flow = text(data, 'flow')
      if (flow === 'password-check') {
        return compose(`Changing your ${PRODUCT_NAME} password is paused`, footer, [
          `Someone signed in to your ${PRODUCT_NAME} account (${mail.to}) entered a wrong current password too many times in Account settings. To protect your account, changing the password there is paused for ${pause}. A reset link we email you still works.`,
          'If that was not you, someone else may be signed in: sign out of all sessions in Account settings, then set a new password with a reset link.',
          { label: 'Account settings', url: link('/dashboard/settings/account') },
          { label: 'Reset your password', url: link('/forgot-password') },
        ])
      }
      if (flow === 'email-code') {
        return compose(`Too many wrong codes for ${mail.to} on ${PRODUCT_NAME}`, footer, [
          `Someone entered too many wrong codes from our emails for ${mail.to}. To protect this address, codes are not accepted for ${pause}. The link in the email still works, and only this inbox receives it.`,
          `If you did not sign up for ${PRODUCT_NAME}, you can ignore this mail: without the link or the code nobody can use an account with this address.`,
        ])
      }
      return compose(`Password sign-in to your ${PRODUCT_NAME} account is paused`, footer, [
        `Someone tried too many wrong passwords for your ${PRODUCT_NAME} account (${mail.to}). To protect it, signing in with the password is paused for ${pause}. You can still sign in with a link we email you: only this inbox receives it.`,
        {
          label: 'Sign in with an emailed link',
          url: link(`/sign-in?${new URLSearchParams({ email: mail.to })}`),
        },
        'If that was not you, your account is safe as long as your password is not used elsewhere. To be sure, choose a new one:',
        { label: 'Reset your password', url: link('/forgot-password') },
      ])
    }
  }
}
