import type Stripe from 'stripe'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { setupStack, subscribeThroughCheckout, verifiedEvents } from './test-support'

let stack: Awaited<ReturnType<typeof setupStack>>
let ids: Awaited<ReturnType<typeof subscribeThroughCheckout>>
let portalUrl: string
const returnUrl = 'http://localhost:5173/dashboard/settings/billing'

beforeEach(async () => {
  stack = await setupStack()
  ids = await subscribeThroughCheckout(stack.stripe, stack.emulator)
  stack.receiver.received.length = 0
  const session = await stack.stripe.billingPortal.sessions.create({
    customer: ids.customerId,
    return_url: returnUrl,
  })
  portalUrl = session.url
})
afterEach(async () => {
  await stack.teardown()
})

/** Posts a portal form as the browser would, then returns the events it produced. */
async function portalAction(fields: Record<string, string>) {
  const response = await fetch(portalUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ subscription: ids.subscriptionId, ...fields }),
    redirect: 'manual',
  })
  expect(response.status).toBe(303)
  await stack.emulator.idle()
  const events = verifiedEvents(stack.stripe, stack.receiver)
  stack.receiver.received.length = 0
  return { events, location: response.headers.get('location') as string }
}

function subscriptionOf(event: Stripe.Event) {
  return event.data.object as Stripe.Subscription
}

describe('billing portal', () => {
  it('cancels at period end with feedback, then resumes', async () => {
    const cancel = await portalAction({
      intent: 'cancel_at_period_end',
      feedback: 'too_expensive',
      comment: 'pricey',
    })
    expect(cancel.events.map((event) => event.type)).toEqual(['customer.subscription.updated'])
    const scheduled = subscriptionOf(cancel.events[0])
    const periodEnd = scheduled.items.data[0].current_period_end
    expect(scheduled).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: periodEnd,
      cancellation_details: {
        reason: 'cancellation_requested',
        feedback: 'too_expensive',
        comment: 'pricey',
      },
    })
    expect(scheduled.canceled_at).toEqual(expect.any(Number))
    expect(cancel.events[0].data.previous_attributes).toEqual({
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, reason: null },
    })
    const page = await (await fetch(new URL(cancel.location, portalUrl))).text()
    expect(page).toContain('will be canceled at the end of the billing period')
    expect(page).toContain('Resume subscription')

    const resume = await portalAction({ intent: 'resume' })
    expect(resume.events.map((event) => event.type)).toEqual(['customer.subscription.updated'])
    expect(subscriptionOf(resume.events[0])).toMatchObject({
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    })
    expect(resume.events[0].data.previous_attributes).toMatchObject({
      cancel_at_period_end: true,
      cancel_at: periodEnd,
      cancellation_details: { reason: 'cancellation_requested', feedback: 'too_expensive' },
    })
  })

  it('refuses a portal session after 30 minutes', async () => {
    stack.emulator.advanceClock(31 * 60)
    const response = await fetch(portalUrl)
    expect(response.status).toBe(410)
    const html = await response.text()
    expect(html).toContain('This portal session has expired')
    expect(html).toContain(`<a href="${returnUrl}">Return to site</a>`)
  })
})
