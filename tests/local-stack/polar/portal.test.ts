import { PolarClientError } from '@polar-sh/sdk'
import { errors } from '@polar-sh/sdk/2026-10'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { catalogPlan, LOCAL_CATALOG } from '../catalog'
import { setup, verify } from './test-helpers'

let env: Awaited<ReturnType<typeof setup>>

async function subscribe(userId: string) {
  const checkout = await env.polar.checkouts.create({
    products: [catalogPlan(LOCAL_CATALOG, 'starter').polar.productId],
    external_customer_id: userId,
    metadata: { user_id: userId },
  })
  const done = await env.emulator.completeCheckout(checkout.id)
  await env.emulator.idle()
  env.receiver.received.length = 0
  return done
}

function postForm(url: string, fields: Record<string, string>) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  })
}

async function deliveredEvents() {
  await env.emulator.idle()
  const events = await Promise.all(env.receiver.received.map((r) => verify(r)))
  env.receiver.received.length = 0
  return events
}

beforeEach(async () => {
  env = await setup()
})
afterEach(async () => {
  await env.close()
})

describe('customer portal', () => {
  it('creates a session and lets the customer cancel, resume and end the subscription', async () => {
    const { subscription, customer } = await subscribe('user-p1')
    const session = await env.polar.customerSessions.create({
      customer_id: customer.id,
      return_url: 'http://localhost:5173/dashboard',
    })
    expect(session.customer_id).toBe(customer.id)
    expect(session.token).toMatch(/^polar_cst_/)
    expect(session.customer_portal_url).toBe(`${env.emulator.url}/portal/${session.token}`)
    expect(session.customer.external_id).toBe('user-p1')

    const portal = await (await fetch(session.customer_portal_url)).text()
    expect(portal).toContain('<h2>Starter</h2>')
    expect(portal).toContain('>Cancel subscription</button>')
    expect(portal).toContain('href="http://localhost:5173/dashboard">Return to site</a>')

    const action = `${env.emulator.url}/portal/${session.token}/subscriptions/${subscription.id}`
    const canceled = await postForm(action, { intent: 'cancel' })
    expect(canceled.status).toBe(303)
    expect(canceled.headers.get('location')).toBe(`/portal/${session.token}?notice=cancel`)
    const afterCancel = await deliveredEvents()
    expect(afterCancel.map((e) => e.type)).toEqual([
      'subscription.updated',
      'subscription.canceled',
    ])
    expect(afterCancel[1].data).toMatchObject({
      id: subscription.id,
      status: 'active',
      cancel_at_period_end: true,
      ends_at: subscription.current_period_end,
      canceled_at: expect.any(String),
      metadata: { user_id: 'user-p1' },
    })
    const page = await (await fetch(`${session.customer_portal_url}?notice=cancel`)).text()
    expect(page).toContain(
      'role="status">Your subscription will be canceled at the end of the billing period.',
    )
    expect(page).toContain('>Resume subscription</button>')

    expect((await postForm(action, { intent: 'resume' })).status).toBe(303)
    const afterResume = await deliveredEvents()
    expect(afterResume.map((e) => e.type)).toEqual([
      'subscription.updated',
      'subscription.uncanceled',
    ])
    expect(afterResume[1].data).toMatchObject({
      cancel_at_period_end: false,
      canceled_at: null,
      ends_at: null,
    })

    expect((await postForm(action, { intent: 'revoke' })).status).toBe(303)
    const afterRevoke = await deliveredEvents()
    expect(afterRevoke.map((e) => e.type)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ])
    expect(afterRevoke[2].data).toMatchObject({ status: 'canceled', ended_at: expect.any(String) })

    const again = await postForm(action, { intent: 'cancel' })
    expect(again.status).toBe(409)
    expect(await again.text()).toContain('role="alert">This subscription is already canceled')
  })

  it('finds the customer by external id and refuses unknown customers and tokens', async () => {
    const { customer } = await subscribe('user-p2')
    const session = await env.polar.customerSessions.create({ external_customer_id: 'user-p2' })
    expect(session).toMatchObject({ customer_id: customer.id, return_url: null })

    const error = await env.polar.customerSessions
      .create({ external_customer_id: 'nobody' })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(errors.HTTPValidationError)
    expect((error as InstanceType<typeof errors.HTTPValidationError>).error).toEqual({
      detail: [
        {
          type: 'value_error',
          loc: ['body', 'external_customer_id'],
          msg: 'Customer does not exist.',
          input: 'nobody',
        },
      ],
    })
    expect((await fetch(`${env.emulator.url}/portal/polar_cst_unknown`)).status).toBe(404)
  })
})

describe('subscriptions API', () => {
  it('cancels, uncancels and revokes through the SDK with Polar errors', async () => {
    const { subscription } = await subscribe('user-s1')
    const canceled = await env.polar.subscriptions.update(subscription.id, {
      cancel_at_period_end: true,
      customer_cancellation_reason: 'too_expensive',
    })
    expect(canceled).toMatchObject({
      cancel_at_period_end: true,
      customer_cancellation_reason: 'too_expensive',
    })
    const twice = await env.polar.subscriptions
      .update(subscription.id, { cancel_at_period_end: true })
      .catch((e: unknown) => e)
    expect(twice).toBeInstanceOf(errors.SubscriptionsUpdate403Error)
    expect((twice as PolarClientError).error).toEqual({
      error: 'AlreadyCanceledSubscription',
      detail: 'This subscription is already canceled or will be at the end of the period.',
    })

    const resumed = await env.polar.subscriptions.update(subscription.id, {
      cancel_at_period_end: false,
    })
    expect(resumed).toMatchObject({
      cancel_at_period_end: false,
      customer_cancellation_reason: null,
    })
    const revoked = await env.polar.subscriptions.revoke(subscription.id)
    expect(revoked).toMatchObject({ status: 'canceled', ended_at: expect.any(String) })
    expect((await deliveredEvents()).map((e) => e.type)).toEqual([
      'subscription.updated',
      'subscription.canceled',
      'subscription.updated',
      'subscription.uncanceled',
      'subscription.updated',
      'subscription.canceled',
      'subscription.revoked',
    ])

    const list = await env.polar.subscriptions.list({ external_customer_id: 'user-s1' })
    expect(list.items.map((s) => s.status)).toEqual(['canceled'])
    expect(list.pagination).toEqual({ total_count: 1, max_page: 1 })
    expect((await env.polar.subscriptions.get(subscription.id)).customer.external_id).toBe(
      'user-s1',
    )
  })
})
