import { describe, expect, it } from 'vitest'

import { MAIL_KINDS, type MailKind } from './kinds'
import { PRODUCT_NAME, type ReceiptPayment, renderMail } from './render'

const siteUrl = 'https://app.example.com'
const payment: ReceiptPayment = {
  amount: 1900,
  currency: 'usd',
  description: 'Pro (monthly)',
  invoice_url: null,
  created_at: '2026-03-05T10:00:00Z',
}
const render = (kind: MailKind, data: Record<string, unknown> = {}, extra = {}) =>
  renderMail({ kind, to: 'ada@example.com', data }, { siteUrl, ...extra })
const billing = 'https://app.example.com/dashboard/settings/billing'
const emails = { old_email: 'ada@example.com', new_email: 'ada@new.example' }

describe('renderMail', () => {
  it('a receipt: amount, date, billing history; the invoice link once it is known', () => {
    const receipt = (invoice_url: string | null) =>
      render('payment_receipt', {}, { payment: { ...payment, invoice_url } })!
    const pending = receipt(null)
    expect(pending.subject).toBe(`Receipt for your ${PRODUCT_NAME} payment of $19.00`)
    expect(pending.text).toContain(
      'We received your payment of $19.00 on March 5, 2026 for Pro (monthly).',
    )
    expect(pending.text).toContain('Your invoice is being prepared')
    expect(pending.text).toContain(`Billing history: ${billing}`)
    const ready = receipt('https://invoice.stripe.com/i/acct_1/in_1')
    expect(ready.text).toContain('View your invoice: https://invoice.stripe.com/i/acct_1/in_1')
    expect(ready.html).toContain(
      '<a href="https://invoice.stripe.com/i/acct_1/in_1">View your invoice</a>',
    )
    // No receipt when its payment is gone; a non-http invoice link is left out.
    expect(render('payment_receipt', {}, { payment: null })).toBeNull()
    const unsafe = receipt('javascript:alert(1)')
    expect(unsafe.text + unsafe.html).not.toContain('javascript:')
  })

  it.each<[MailKind, Record<string, unknown>, string | null, string[], string[]?]>([
    [
      'payment_failed',
      { amount: 2900, currency: 'eur', invoice_url: 'https://invoice.stripe.com/i/x' },
      `Your ${PRODUCT_NAME} payment did not go through`,
      [
        'payment of €29.00',
        `Update your payment method: ${billing}`,
        'Or pay the invoice now: https://invoice.stripe.com/i/x',
      ],
      ['We will retry on'],
    ],
    // When Stripe named the day of its retry, the mail says it as the pages do.
    [
      'payment_failed',
      { amount: 2900, currency: 'eur', retry_at: '2026-12-04T11:00:00.000Z' },
      null,
      ['payment of €29.00. We will retry on December 4, 2026.'],
    ],
    ['payment_failed', { provider: 'polar' }, null, [], ['invoice now']],
    [
      'subscription_canceled',
      { plan_name: 'Pro', ends_at: '2026-04-01T00:00:00+00:00' },
      'Your Pro subscription will end on April 1, 2026',
      ['You keep access until April 1, 2026'],
    ],
    [
      'subscription_ended',
      { plan_name: 'Pro', ended_at: '2026-04-01T00:00:00Z' },
      'Your Pro subscription has ended',
      ['Subscribe again: https://app.example.com/pricing'],
    ],
    [
      'password_changed',
      {},
      `Your ${PRODUCT_NAME} password was changed`,
      ['Reset your password: https://app.example.com/forgot-password'],
    ],
    ['email_changed', emails, null, ['was changed from ada@example.com to ada@new.example']],
    ['signed_out_everywhere', {}, `You were signed out of ${PRODUCT_NAME} everywhere`, []],
    [
      'attempts_limited',
      { flow: 'sign-in', minutes: 15 },
      `Password sign-in to your ${PRODUCT_NAME} account is paused`,
      [
        'signing in with the password is paused for 15 minutes',
        'Sign in with an emailed link: https://app.example.com/sign-in?email=ada%40example.com',
      ],
    ],
    [
      'attempts_limited',
      { flow: 'password-check', minutes: 15 },
      `Changing your ${PRODUCT_NAME} password is paused`,
      ['sign out of all sessions'],
    ],
    [
      'attempts_limited',
      { flow: 'email-code', minutes: 1 },
      `Too many wrong codes for ada@example.com on ${PRODUCT_NAME}`,
      ['codes are not accepted for 1 minute.', 'If you did not sign up'],
    ],
    [
      'plan_changed',
      {
        old_plan: 'Starter',
        plan_name: 'Pro',
        billing_cycle: 'month',
        next_charge_at: '2026-04-01T00:00:00Z',
        // Half the period left: $29.00 + $14.50 − $4.50, as the plan change page showed.
        period_start: '2026-03-01T00:00:00Z',
        changed_at: '2026-03-16T12:00:00Z',
      },
      `Your ${PRODUCT_NAME} plan is now Pro`,
      [
        'Your subscription changed from Starter to Pro.',
        'Your next invoice: $39.00 on April 1, 2026, the difference',
      ],
    ],
    // A plan the catalog does not know: the date only.
    [
      'plan_changed',
      { plan_name: 'Legacy', next_charge_at: '2026-04-01' },
      null,
      ['Your next invoice: on April 1, 2026,'],
    ],
    [
      'subscription_resumed',
      { plan_name: 'Starter', next_charge_at: '2026-04-01T00:00:00Z' },
      'Your Starter subscription continues',
      ['Your next invoice: $9.00 on April 1, 2026.'],
    ],
    // One mail, no links into the account, no further charges.
    [
      'account_deleted',
      { canceled_plan: 'Pro', deleted_at: '2026-03-05T10:00:00Z' },
      `Your ${PRODUCT_NAME} account was deleted`,
      ['Your Pro subscription was canceled with it: there will be no further charges.'],
      ['/dashboard', 'stays in your account'],
    ],
    ['account_deleted', {}, null, ['You had no subscription that could charge you']],
    [
      'payment_refunded',
      { amount: 500, refunded_total: 900, paid: 2900, currency: 'usd', description: 'Pro payment' },
      '$5.00 refunded to you',
      ['We refunded $5.00 of your $29.00 Pro payment; $9.00 of it is refunded in all.'],
    ],
  ])('%s of %j', (kind, data, subject, has, lacks = []) => {
    const mail = render(kind, data)!
    if (subject !== null) expect(mail.subject).toBe(subject)
    for (const line of has) expect(mail.text).toContain(line)
    for (const line of lacks) expect(mail.text).not.toContain(line)
  })

  it('an email change tells the new address it is the sign-in email now', () => {
    const toNew = renderMail(
      { kind: 'email_changed', to: 'ada@new.example', data: emails },
      { siteUrl },
    )!
    expect(toNew.text).toContain('ada@new.example is now the sign-in email')
  })

  it('escapes data in HTML, and every mail links to its preferences', () => {
    const mail = render('subscription_ended', { plan_name: '<b>Pro</b>' })!
    expect(mail.html).toContain('&lt;b&gt;Pro&lt;/b&gt;')
    expect(mail.html).not.toContain('<b>Pro</b>')
    for (const kind of Object.keys(MAIL_KINDS) as MailKind[]) {
      // Not a mail: the providers' customers take a new address (customer-email.server.ts).
      if (kind === 'customer_email') continue
      const rendered = render(kind, {}, { payment })!
      expect(rendered.html).toContain(PRODUCT_NAME)
      // The deleted account's mail has no settings left to link to; the contact mails none at all.
      if (kind === 'account_deleted' || MAIL_KINDS[kind] === null) continue
      expect(rendered.text).toContain('https://app.example.com/dashboard/settings/notifications')
    }
  })

  it('a contact message: to the team, reply-to the sender; the receipt repeats nothing they typed', () => {
    const message = {
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      company: 'Analytical\nEngines',
      message: 'First line.\nSecond line <b>.',
      received_at: '2026-03-05T10:00:00Z',
    }
    const team = render('contact_message', message)!
    expect(team.subject).toBe('Contact form: Ada Lovelace, Analytical Engines')
    expect(team.replyTo).toBe('ada@example.com')
    expect(team.text).toContain('First line.\nSecond line <b>.')
    expect(team.html).toContain('Second line &lt;b&gt;.')
    expect(team.text).toContain('https://app.example.com/contact')
    const receipt = render('contact_receipt', { received_at: message.received_at })!
    expect(receipt.subject).toBe(`We received your message to ${PRODUCT_NAME}`)
    expect(receipt.replyTo).toBeUndefined()
    expect(receipt.text).toContain('We answer every message within one business day')
  })
})
