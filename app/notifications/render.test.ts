import { describe, expect, it } from 'vitest'

import { MAIL_KINDS, type MailKind, NOTIFICATION_KINDS } from './kinds'
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

describe('renderMail', () => {
  it('a receipt: amount, date, billing history; the invoice link once it is known', () => {
    const pending = render('payment_receipt', {}, { payment })!
    expect(pending.subject).toBe(`Receipt for your ${PRODUCT_NAME} payment of $19.00`)
    expect(pending.text).toContain(
      'We received your payment of $19.00 on March 5, 2026 for Pro (monthly).',
    )
    expect(pending.text).toContain('Your invoice is being prepared')
    expect(pending.text).toContain(
      'Billing history: https://app.example.com/dashboard/settings/billing',
    )
    const ready = render(
      'payment_receipt',
      {},
      {
        payment: { ...payment, invoice_url: 'https://invoice.stripe.com/i/acct_1/in_1' },
      },
    )!
    expect(ready.text).toContain('View your invoice: https://invoice.stripe.com/i/acct_1/in_1')
    expect(ready.html).toContain(
      '<a href="https://invoice.stripe.com/i/acct_1/in_1">View your invoice</a>',
    )
  })

  it('no receipt when its payment is gone; a non-http invoice link is left out', () => {
    expect(render('payment_receipt', {}, { payment: null })).toBeNull()
    const mail = render(
      'payment_receipt',
      {},
      {
        payment: { ...payment, invoice_url: 'javascript:alert(1)' },
      },
    )!
    expect(mail.text).not.toContain('javascript:')
    expect(mail.html).not.toContain('javascript:')
  })

  it('a failed payment says how to fix it: billing (the portal), and the invoice when there is one', () => {
    const mail = render('payment_failed', {
      amount: 2900,
      currency: 'eur',
      invoice_url: 'https://invoice.stripe.com/i/x',
    })!
    expect(mail.subject).toBe(`Your ${PRODUCT_NAME} payment did not go through`)
    expect(mail.text).toContain('payment of €29.00')
    expect(mail.text).toContain(
      'Update your payment method: https://app.example.com/dashboard/settings/billing',
    )
    expect(mail.text).toContain('Or pay the invoice now: https://invoice.stripe.com/i/x')
    expect(mail.text).not.toContain('We will retry on')
    // When Stripe named the day of its retry, the mail says it as the pages do.
    const dated = render('payment_failed', {
      amount: 2900,
      currency: 'eur',
      retry_at: '2026-12-04T11:00:00.000Z',
    })!
    expect(dated.text).toContain('payment of €29.00. We will retry on December 4, 2026.')
    expect(render('payment_failed', { provider: 'polar' })!.text).not.toContain('invoice now')
  })

  it('canceled (ends later) and ended', () => {
    const canceled = render('subscription_canceled', {
      plan_name: 'Pro',
      ends_at: '2026-04-01T00:00:00+00:00',
    })!
    expect(canceled.subject).toBe('Your Pro subscription will end on April 1, 2026')
    expect(canceled.text).toContain('You keep access until April 1, 2026')
    const ended = render('subscription_ended', {
      plan_name: 'Pro',
      ended_at: '2026-04-01T00:00:00Z',
    })!
    expect(ended.subject).toBe('Your Pro subscription has ended')
    expect(ended.text).toContain('Subscribe again: https://app.example.com/pricing')
  })

  it('security notices say what happened and what to do if it was not you', () => {
    const password = render('password_changed')!
    expect(password.subject).toBe(`Your ${PRODUCT_NAME} password was changed`)
    expect(password.text).toContain('Reset your password: https://app.example.com/forgot-password')
    const data = { old_email: 'ada@example.com', new_email: 'ada@new.example' }
    const toOld = render('email_changed', data)!
    expect(toOld.text).toContain('was changed from ada@example.com to ada@new.example')
    const toNew = renderMail({ kind: 'email_changed', to: 'ada@new.example', data }, { siteUrl })!
    expect(toNew.text).toContain('ada@new.example is now the sign-in email')
    expect(render('signed_out_everywhere')!.subject).toBe(
      `You were signed out of ${PRODUCT_NAME} everywhere`,
    )
  })

  it('a reached guessing ceiling: what is paused, for how long, and the emailed link that still works', () => {
    const signIn = render('attempts_limited', { flow: 'sign-in', minutes: 15 })!
    expect(signIn.subject).toBe(`Password sign-in to your ${PRODUCT_NAME} account is paused`)
    expect(signIn.text).toContain('signing in with the password is paused for 15 minutes')
    expect(signIn.text).toContain(
      'Sign in with an emailed link: https://app.example.com/sign-in?email=ada%40example.com',
    )
    const check = render('attempts_limited', { flow: 'password-check', minutes: 15 })!
    expect(check.subject).toBe(`Changing your ${PRODUCT_NAME} password is paused`)
    expect(check.text).toContain('sign out of all sessions')
    const code = render('attempts_limited', { flow: 'email-code', minutes: 1 })!
    expect(code.subject).toBe(`Too many wrong codes for ada@example.com on ${PRODUCT_NAME}`)
    expect(code.text).toContain('codes are not accepted for 1 minute.')
    expect(code.text).toContain('If you did not sign up')
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

  it('a plan change says what changed and the next charge', () => {
    const mail = render('plan_changed', {
      old_plan: 'Starter',
      plan_name: 'Pro',
      billing_cycle: 'month',
      next_charge_at: '2026-04-01T00:00:00Z',
      // Half the period left: $29.00 + $14.50 − $4.50, as the plan change page showed.
      period_start: '2026-03-01T00:00:00Z',
      changed_at: '2026-03-16T12:00:00Z',
    })!
    expect(mail.subject).toBe(`Your ${PRODUCT_NAME} plan is now Pro`)
    expect(mail.text).toContain('Your subscription changed from Starter to Pro.')
    expect(mail.text).toContain('Your next invoice: $39.00 on April 1, 2026, the difference')
    // A plan the catalog does not know: the date only.
    const unknown = render('plan_changed', { plan_name: 'Legacy', next_charge_at: '2026-04-01' })!
    expect(unknown.text).toContain('Your next invoice: on April 1, 2026,')
  })

  it('a resumed subscription says it renews, and the next charge', () => {
    const mail = render('subscription_resumed', {
      plan_name: 'Starter',
      next_charge_at: '2026-04-01T00:00:00Z',
    })!
    expect(mail.subject).toBe('Your Starter subscription continues')
    expect(mail.text).toContain('Your next invoice: $9.00 on April 1, 2026.')
  })

  it('a deleted account: one mail, no links into the account, no further charges', () => {
    const mail = render('account_deleted', {
      canceled_plan: 'Pro',
      deleted_at: '2026-03-05T10:00:00Z',
    })!
    expect(mail.subject).toBe(`Your ${PRODUCT_NAME} account was deleted`)
    expect(mail.text).toContain(
      'Your Pro subscription was canceled with it: there will be no further charges.',
    )
    expect(mail.text).not.toContain('/dashboard')
    expect(mail.text).not.toContain('stays in your account')
    expect(render('account_deleted')!.text).toContain(
      'You had no subscription that could charge you',
    )
    const refund = render('payment_refunded', {
      amount: 500,
      refunded_total: 900,
      paid: 2900,
      currency: 'usd',
      description: 'Pro payment',
    })!
    expect(refund.subject).toBe('$5.00 refunded to you')
    expect(refund.text).toContain(
      'We refunded $5.00 of your $29.00 Pro payment; $9.00 of it is refunded in all.',
    )
  })
})

describe('which preference governs each mail', () => {
  it('billing mails under billing, security notices under security, none under product updates', () => {
    expect(MAIL_KINDS).toEqual({
      payment_receipt: 'billing',
      payment_failed: 'billing',
      subscription_canceled: 'billing',
      subscription_ended: 'billing',
      plan_changed: 'billing',
      subscription_resumed: 'billing',
      password_changed: 'security',
      email_changed: 'security',
      signed_out_everywhere: 'security',
      attempts_limited: 'security',
      account_deleted: 'security',
      payment_refunded: 'billing',
      customer_email: 'billing',
      contact_message: null,
      contact_receipt: null,
    })
    for (const category of Object.values(MAIL_KINDS))
      expect([...NOTIFICATION_KINDS, null]).toContain(category)
  })
})
