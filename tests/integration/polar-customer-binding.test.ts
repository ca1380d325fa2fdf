import { describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { getPolar } from '../../app/billing/polar/client.server'
import { adminClient, createSignedInUser, rowsWhere, testAppForFile } from './harness'
import { polarCheckout, polarEvent, postPolarEvent, subscriptionObject } from './polar-fixtures'

// The Polar customer is bound to our user by `external_id`, server side. The emulator reuses a
// customer by email and merges checkout customer metadata into it, as Polar does: attacks use it.
const app = testAppForFile({ polarInvoiceDelayMs: 0 })
const OK = { status: 200, body: { received: true } }
type User = Awaited<ReturnType<typeof createSignedInUser>>
const PRO = catalogPlan('pro').polar.productId
const STARTER = catalogPlan('starter').polar.productId

const checkout = (params: Record<string, string>, user?: User) =>
  polarCheckout(app, params, user?.cookie)
/** Pays the checkout a 307 points at, typing `email` on the hosted page. */
async function pay(response: Response, email?: string) {
  expect(response.status).toBe(307)
  const secret = new URL(response.headers.get('location') ?? '').pathname.split('/').pop() ?? ''
  const paid = await app.stack.polar.completeCheckout(secret, email ? { email } : undefined)
  await app.stack.polar.idle()
  return paid
}
const rowOf = async (user_id: string) =>
  (
    await rowsWhere(
      app,
      'user_subscriptions',
      { user_id },
      {
        select: 'polar_customer_id, polar_subscription_id, plan_name, status',
      },
    )
  )[0] ?? null
const paymentsOf = (user_id: string) =>
  rowsWhere(app, 'payment_history', { user_id }, { select: 'provider_payment_id, status' })
/** A victim with a paid Starter subscription through the pricing page's own link. */
async function subscribedVictim() {
  const victim = await createSignedInUser(app)
  const paid = await pay(await checkout({ products: STARTER, customerEmail: victim.email }, victim))
  const row = await rowOf(victim.id)
  expect(row).toMatchObject({ polar_customer_id: paid.customer.id, plan_name: 'Starter' })
  expect(await paymentsOf(victim.id)).toHaveLength(1)
  return { victim, customerId: paid.customer.id, row }
}
function portal(user: User) {
  return fetch(`${app.url}/api/portal`, { headers: { cookie: user.cookie } })
}

describe("a signed-in attacker using the victim's email", () => {
  it('is refused with a clear 400, and nothing reaches Polar', async () => {
    const { victim } = await subscribedVictim()
    const attacker = await createSignedInUser(app)
    const checkoutsBefore = app.stack.polar.state.checkouts.size
    const response = await checkout({ products: PRO, customerEmail: victim.email }, attacker)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: 'customerEmail must be the email address of the signed-in account',
    })
    expect(app.stack.polar.state.checkouts.size).toBe(checkoutsBefore)
  })

  it("typing the victim's email on the hosted page still pays with the attacker's own customer", async () => {
    const { victim, customerId, row } = await subscribedVictim()
    const attacker = await createSignedInUser(app)
    const paid = await pay(await checkout({ products: PRO }, attacker), victim.email)
    expect(paid.customer.id).not.toBe(customerId)
    expect(paid.customer.external_id).toBe(attacker.id)
    expect(await rowOf(attacker.id)).toMatchObject({ polar_customer_id: paid.customer.id })
    expect(await rowOf(victim.id)).toEqual(row)

    // The attacker's portal opens the attacker's customer, never the victim's.
    const response = await portal(attacker)
    expect(response.status).toBe(200)
    const { url } = (await response.json()) as { url: string }
    const token = new URL(url).pathname.split('/').pop() ?? ''
    const session = [...app.stack.polar.state.sessions.values()].find((s) => s.token === token)
    expect(session?.customer_id).toBe(paid.customer.id)
  })

  it("an event naming the attacker but carrying the victim's customer changes nothing", async () => {
    const { victim, customerId } = await subscribedVictim()
    const attacker = await createSignedInUser(app)
    const forged = subscriptionObject({ userId: attacker.id, customerId })
    const withVictimsCustomer = {
      ...forged,
      customer: { ...forged.customer, external_id: victim.id },
    }
    const result = await postPolarEvent(
      app.url,
      polarEvent('subscription.created', withVictimsCustomer),
    )
    expect(result).toMatchObject(OK)
    expect(await rowOf(attacker.id)).toBeNull()
  })

  it('the portal never opens a customer bound to someone else, even if the row names it', async () => {
    const { customerId } = await subscribedVictim()
    const attacker = await createSignedInUser(app)
    // A row that points at the victim's customer (as a webhook of the old rules wrote).
    await adminClient(app).from('user_subscriptions').insert({
      user_id: attacker.id,
      provider: 'polar',
      status: 'active',
      polar_customer_id: customerId,
    })
    const response = await portal(attacker)
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'No subscription found' })
    const opened = [...app.stack.polar.state.sessions.values()].filter(
      (s) => s.customer_id === customerId,
    )
    expect(opened).toHaveLength(0)
  })
})

it("an anonymous payer using the victim's email: paying elsewhere at Polar, cannot change the victim's plan or history, nor mark the victim past due later", async () => {
  const { victim, customerId, row } = await subscribedVictim()
  const payments = await paymentsOf(victim.id)

  // A checkout the app did not create (a link shared from Polar's own dashboard): it names
  // no user and no customer, only the address the payer types. Polar confirms it for an
  // organization that allows multiple subscriptions (else it refuses the victim's customer).
  app.stack.polar.setSubscriptionSettings({ allow_multiple_subscriptions: true })
  const outside = await getPolar('checkout').checkouts.create({
    products: [PRO],
    customer_email: victim.email,
  })
  const secret = new URL(outside.url).pathname.split('/').pop() ?? ''
  const paid = await app.stack.polar.completeCheckout(secret)
  await app.stack.polar.idle()
  // Polar reused the victim's customer by email, as it does for an anonymous checkout.
  expect(paid.customer.id).toBe(customerId)
  expect(await rowOf(victim.id)).toEqual(row)
  expect(await paymentsOf(victim.id)).toEqual(payments)

  // The payer's renewal fails: the victim stays as they were.
  await app.stack.polar.trigger('renewal', { subscription_id: paid.subscription.id, paid: false })
  await app.stack.polar.idle()
  expect(await rowOf(victim.id)).toEqual(row)
  expect(await paymentsOf(victim.id)).toEqual(payments)
})

it('one live subscription per user: a subscriber is sent to billing instead of paying twice', async () => {
  const { victim: subscriber } = await subscribedVictim()
  const checkoutsBefore = app.stack.polar.state.checkouts.size
  const response = await checkout({ products: PRO }, subscriber)
  expect(response.status).toBe(303)
  expect(response.headers.get('location')).toBe(
    '/dashboard/settings/billing?notice=already-subscribed',
  )
  expect(app.stack.polar.state.checkouts.size).toBe(checkoutsBefore)
})
