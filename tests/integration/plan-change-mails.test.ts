import { describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { deliverDueMails } from '../../app/notifications/delivery.server'
import { smtpTransport } from '../../app/notifications/mailer.server'
import { createSignedInUser, testAppForFile } from './harness'
import { mailSubject } from './mail-support'
import { postStripeEvent, stripeEvent, subscriptionObject } from './stripe-fixtures'

const app = testAppForFile()

const PERIOD_END = Date.UTC(2026, 11, 20, 12) / 1000 // December 20, 2026
const DAY = 86_400

async function send(type: string, object: unknown, created: number) {
  const answer = await postStripeEvent(app.url, stripeEvent(type, object, { created }))
  expect(answer.status).toBe(200)
}

async function inbox(email: string) {
  await deliverDueMails(smtpTransport())
  return (await app.stack.supabase.inbox.list()).filter((mail) => mail.to === email)
}

describe('plan change and resume mails', () => {
  it('Starter → Pro: one mail naming both plans and the next invoice, the change prorated', async () => {
    const user = await createSignedInUser(app)
    const periodStart = PERIOD_END - 30 * DAY
    const base = {
      id: `sub_change_${user.id.slice(0, 8)}`,
      userId: user.id,
      periodStart,
      periodEnd: PERIOD_END,
    }
    await send(
      'customer.subscription.created',
      subscriptionObject({ ...base, price: catalogPlan('starter').stripe.priceId }),
      periodStart,
    )
    // Half the period left: $29.00 + $14.50 for Pro − $4.50 for Starter's unused half.
    await send(
      'customer.subscription.updated',
      subscriptionObject({ ...base, price: catalogPlan('pro').stripe.priceId }),
      periodStart + 15 * DAY,
    )
    const mails = await inbox(user.email)
    expect(mails.map((mail) => mail.subject)).toEqual(['Your Subscribely plan is now Pro'])
    expect(mails[0].text).toContain('Your subscription changed from Starter to Pro.')
    expect(mails[0].text).toContain('Your next invoice: $39.00 on December 20, 2026,')
  })

  it('a canceled-at-period-end plan taken back: "continues", with the next charge', async () => {
    const user = await createSignedInUser(app)
    const base = { id: `sub_resume_${user.id.slice(0, 8)}`, userId: user.id, periodEnd: PERIOD_END }
    const now = Math.floor(Date.now() / 1000)
    await send('customer.subscription.created', subscriptionObject(base), now - 10)
    await send(
      'customer.subscription.updated',
      subscriptionObject({ ...base, cancelAtPeriodEnd: true }),
      now - 5,
    )
    await send('customer.subscription.updated', subscriptionObject(base), now - 1)
    const subjects = (await inbox(user.email)).map((mail) => mail.subject)
    expect(subjects).toContain(mailSubject('subscription_resumed', { plan_name: 'Pro' }))
    const resumed = (await inbox(user.email)).find((mail) => mail.subject.endsWith('continues'))
    expect(resumed?.text).toContain('Your next invoice: $29.00 on December 20, 2026.')
  })
})
