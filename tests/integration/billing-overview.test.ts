import type { SupabaseClient } from '@supabase/supabase-js'
import { beforeAll, describe, expect, it } from 'vitest'

import * as billing from '../../app/routes/dashboard.settings.billing'
import { callRoute } from './auth-support'
import { adminClient, createSignedInUser, testAppForFile } from './harness'
import { pageGet } from './settings-support'

/** The billing page's loader through PostgREST (one `billing_overview` call) and RLS. */
const app = testAppForFile()
let admin: SupabaseClient
type User = Awaited<ReturnType<typeof createSignedInUser>>
type Overview = Awaited<
  ReturnType<typeof import('../../app/subscriptions/billing-overview.server').getBillingOverview>
>

const load = (user: User, query = '') =>
  callRoute<Overview>(
    billing.loader,
    pageGet(`${app.url}/dashboard/settings/billing${query}`, user.cookie),
  )

async function givePayments(user: User, count: number) {
  const rows = Array.from({ length: count }, (_, index) => ({
    user_id: user.id,
    provider: 'stripe',
    provider_payment_id: `in_${user.id.slice(0, 8)}_${index}`,
    amount: 1000 + index,
    currency: 'usd',
    status: 'paid',
    description: `Invoice ${index}`,
    created_at: new Date(Date.UTC(2026, 0, 1 + index)).toISOString(),
  }))
  const { error } = await admin.from('payment_history').insert(rows)
  if (error) throw new Error(error.message)
}

beforeAll(() => {
  admin = adminClient(app)
})

describe('billing page loader', () => {
  it('a user with nothing yet: no subscription, no payments, one page', async () => {
    const user = await createSignedInUser(app)
    const page = await load(user)
    expect(page.status).toBe(200)
    expect(page.data).toEqual({
      subscription: null,
      payments: [],
      page: 1,
      pageCount: 1,
      changes: [],
      confirmCancel: false,
    })
  })

  it('the subscription and payments, newest first, ten to a page, only the user’s own', async () => {
    const [user, other] = [await createSignedInUser(app), await createSignedInUser(app)]
    const { error } = await admin.from('user_subscriptions').insert([
      { user_id: user.id, provider: 'stripe', status: 'active', plan_name: 'Pro' },
      { user_id: other.id, provider: 'stripe', status: 'canceled', plan_name: 'Starter' },
    ])
    if (error) throw new Error(error.message)
    await givePayments(user, 12)
    await givePayments(other, 3)

    const first = await load(user)
    expect(first.data.subscription).toMatchObject({ status: 'active', plan_name: 'Pro' })
    expect(first.data).toMatchObject({ page: 1, pageCount: 2 })
    expect(first.data.payments.map((payment) => payment.amount)).toEqual(
      [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((index) => 1000 + index),
    )
    expect(Object.keys(first.data.payments[0]).sort()).toEqual([
      'amount',
      'amount_refunded',
      'created_at',
      'currency',
      'description',
      'dispute_status',
      'id',
      'invoice_url',
      'provider',
      'status',
    ])

    const second = await load(user, '?page=2')
    expect(second.data).toMatchObject({ page: 2, pageCount: 2 })
    expect(second.data.payments.map((payment) => payment.amount)).toEqual([1001, 1000])

    // Past the end (an old link): the last page. Nonsense: the first.
    expect((await load(user, '?page=9')).data).toMatchObject({ page: 2 })
    expect((await load(user, '?page=99999999999')).data).toMatchObject({ page: 2 })
    expect((await load(user, '?page=abc')).data).toMatchObject({ page: 1 })

    const others = await load(other)
    expect(others.data.subscription).toMatchObject({ status: 'canceled', plan_name: 'Starter' })
    expect(others.data.payments).toHaveLength(3)
  })
})
