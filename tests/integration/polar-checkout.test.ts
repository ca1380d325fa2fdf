import { randomUUID } from 'node:crypto'

import { afterEach, describe, expect, it } from 'vitest'

import { catalogPlan } from '../../app/billing/plans.test-support'
import * as apiCheckout from '../../app/routes/api.checkout'
import { appRequest } from './auth-support'
import { createSignedInUser, rowsWhere, successStatus, testAppForFile } from './harness'
import { polarCheckout } from './polar-fixtures'

const app = testAppForFile({ polarInvoiceDelayMs: 0 })
const PRO = catalogPlan('pro').polar.productId
const STARTER = catalogPlan('starter').polar.productId
type User = Awaited<ReturnType<typeof createSignedInUser>>

afterEach(() => app.stack.polar.clearFaults())

const getCheckout = (params: Record<string, string>, user?: User) =>
  polarCheckout(app, params, user?.cookie)
/** The emulator's checkout a 307 points at. */
function checkoutBehind(response: Response) {
  const location = response.headers.get('location') ?? ''
  const secret = new URL(location).pathname.split('/').pop() ?? ''
  const checkout = app.stack.polar.state.checkoutByKey(secret)
  if (!checkout) throw new Error(`no emulator checkout behind ${location}`)
  return checkout
}
async function getPortal(user?: User, query = '') {
  return fetch(`${app.url}/api/portal${query}`, { headers: user ? { cookie: user.cookie } : {} })
}
const checkoutCount = () => app.stack.polar.state.checkouts.size

describe('GET /api/checkout', () => {
  it("redirects 307 to a hosted checkout for the user's own customer, bound by external id", async () => {
    const user = await createSignedInUser(app)
    const response = await getCheckout(
      { products: PRO, customerEmail: user.email, metadata: JSON.stringify({ user_id: user.id }) },
      user,
    )
    expect(response.status).toBe(307)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const location = response.headers.get('location') ?? ''
    expect(location.startsWith(`${app.stack.polar.url}/checkout/polar_c_`)).toBe(true)
    const checkout = checkoutBehind(response)
    const customer = app.stack.polar.state.customerByExternalId(user.id)
    expect(customer).toMatchObject({ email: user.email, external_id: user.id })
    expect(checkout).toMatchObject({
      status: 'open',
      product_ids: [PRO],
      success_url: `${app.url}/success?checkout_id=${checkout.id}`,
      metadata: { user_id: user.id },
      customer_id: customer?.id,
      customer_metadata: {},
      customer_email: user.email,
    })
    const again = checkoutBehind(await getCheckout({ products: STARTER }, user))
    expect(again.customer_id).toBe(customer?.id)
  })

  it("adds the signed-in user's id when the metadata has none, keeping the other keys", async () => {
    const user = await createSignedInUser(app)
    const response = await getCheckout(
      { products: `${STARTER}, `, metadata: JSON.stringify({ campaign: 'spring' }) },
      user,
    )
    expect(response.status).toBe(307)
    expect(checkoutBehind(response)).toMatchObject({
      product_ids: [STARTER],
      metadata: { campaign: 'spring', user_id: user.id },
    })
  })

  it('sends no empty metadata value where the request has no id (the dev server)', async () => {
    const user = await createSignedInUser(app)
    const request = appRequest(app, `/api/checkout?products=${PRO}`, { cookie: user.cookie })
    const response = await apiCheckout.loader({ request, params: {}, context: {} })
    expect(response.status).toBe(307)
    expect(checkoutBehind(response).metadata).toEqual({ user_id: user.id })
  })

  const NOT_AN_OBJECT = 'metadata must be a JSON object'
  const BAD_VALUE = 'metadata values must be non-empty strings, numbers or booleans'
  it.each([
    ['no products', {}, 'Missing products in query params'],
    ['empty products', { products: ' , ' }, 'Missing products in query params'],
    ['an unknown product', { products: randomUUID() }, 'Unknown product'],
    ['a known and an unknown product', { products: `${PRO},prod_x` }, 'Unknown product'],
    ['metadata that is not JSON', { products: PRO, metadata: '{user_id:' }, NOT_AN_OBJECT],
    ['metadata that is an array', { products: PRO, metadata: '["a"]' }, NOT_AN_OBJECT],
    ['metadata that is a string', { products: PRO, metadata: '"x"' }, NOT_AN_OBJECT],
    ['metadata that is null', { products: PRO, metadata: 'null' }, NOT_AN_OBJECT],
    ['nested metadata', { products: PRO, metadata: '{"a":{"b":1}}' }, BAD_VALUE],
    [
      'an empty metadata value (Polar refuses it)',
      { products: PRO, metadata: '{"campaign":""}' },
      BAD_VALUE,
    ],
  ])('answers %s with 400 JSON and creates no checkout', async (_label, params, error) => {
    const user = await createSignedInUser(app)
    const before = checkoutCount()
    const response = await getCheckout(params, user)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(await response.json()).toEqual({ error })
    expect(checkoutCount()).toBe(before)
  })

  it("refuses another user's id in the metadata with 403", async () => {
    const [user, victim] = [await createSignedInUser(app), await createSignedInUser(app)]
    const before = checkoutCount()
    const response = await getCheckout(
      { products: PRO, metadata: JSON.stringify({ user_id: victim.id }) },
      user,
    )
    expect(response.status).toBe(403)
    expect(await response.json()).toEqual({
      error: 'metadata.user_id does not match the signed-in user',
    })
    expect(checkoutCount()).toBe(before)
  })
})

describe('GET /api/portal', () => {
  it('answers 401 without a session', async () => {
    const response = await getPortal()
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: 'Unauthorized' })
  })

  it('answers 500 "No subscription found" without a stored customer id, whatever the query says', async () => {
    const user = await createSignedInUser(app)
    const [customer] = app.stack.polar.state.customers.values()
    const response = await getPortal(user, customer ? `?customerId=${customer.id}` : '')
    expect(response.status).toBe(500)
    expect(await response.json()).toEqual({ error: 'No subscription found' })
  })

  it("answers 200 with a portal URL for the user's own customer", async () => {
    const { user, customerId } = await subscribe()
    const response = await getPortal(user)
    expect(response.status).toBe(200)
    const { url } = (await response.json()) as { url: string }
    expect(url.startsWith(`${app.stack.polar.url}/portal/polar_cst_`)).toBe(true)
    const session = app.stack.polar.state.sessionByToken(url.split('/').pop() ?? '')
    expect(session).toMatchObject({
      customer_id: customerId,
      return_url: `${app.url}/dashboard/settings/billing`,
    })
  })
})

/** The whole purchase: checkout link, payment at the emulator, webhooks delivered. */
async function subscribe() {
  const user = await createSignedInUser(app)
  const response = await getCheckout(
    { products: PRO, metadata: JSON.stringify({ user_id: user.id }) },
    user,
  )
  expect(response.status).toBe(307)
  const checkout = checkoutBehind(response)
  const paid = await app.stack.polar.completeCheckout(checkout.id)
  await app.stack.polar.idle()
  return { user, checkoutId: checkout.id, customerId: paid.customer.id, ...paid }
}

describe('/success with a Polar checkout id', () => {
  it('shows an open checkout as pending and a paid one as complete', async () => {
    const user = await createSignedInUser(app)
    const checkout = checkoutBehind(await getCheckout({ products: PRO }, user))
    expect(await successStatus(app, `?checkout_id=${checkout.id}`)).toBe('open')
    await app.stack.polar.completeCheckout(checkout.id)
    await app.stack.polar.idle()
    expect(await successStatus(app, `?checkout_id=${checkout.id}`)).toBe('complete')
  })

  it.each([
    ['a checkout Polar does not know', `?checkout_id=${randomUUID()}`],
    ['a garbage checkout id', '?checkout_id=..%2F..%2Fv1%2Fcustomers'],
    ['no checkout id', ''],
  ])('shows %s as not found', async (_label, query) => {
    expect(await successStatus(app, query)).toBe('missing')
  })

  it('shows confirming, not "not charged", when Polar cannot be asked', async () => {
    const user = await createSignedInUser(app)
    const checkout = checkoutBehind(await getCheckout({ products: PRO }, user))
    await app.stack.polar.completeCheckout(checkout.id)
    await app.stack.polar.idle()
    app.stack.polar.addFault({ path: `/v1/checkouts/${checkout.id}`, status: 503, count: 1 })
    expect(await successStatus(app, `?checkout_id=${checkout.id}`)).toBe('confirming')
    expect(await successStatus(app, `?checkout_id=${checkout.id}`)).toBe('complete')
  })
})

// The rows and "Manage billing": billing-conformance.test.ts; the mapping: polar-webhook.test.ts.
it('the whole flow: checkout → payment → webhooks, each accepted at once: a payment with an invoice link', async () => {
  const { user, order } = await subscribe()
  const payments = await rowsWhere(app, 'payment_history', { user_id: user.id })
  const invoiceUrl = `${app.stack.polar.url}/invoices/${order.id}`
  expect(payments).toMatchObject([{ provider_payment_id: order.id, invoice_url: invoiceUrl }])
  expect((await fetch(invoiceUrl)).status).toBe(200)
  const deliveries = app.stack.polar.deliveries()
  expect(deliveries.length).toBeGreaterThan(5)
  const attempts = deliveries.map((delivery) => delivery.attempts.map(({ status }) => status))
  expect(new Set(attempts.map(String))).toEqual(new Set(['200']))
})
