import { describe, expect, it } from 'vitest'

import { subscriptionsToEnd, subscriptionToEnd } from './deletion-rules'

const stripe = (status: string | null) => ({
  provider: 'stripe' as const,
  status,
  stripe_subscription_id: 'sub_1',
  polar_subscription_id: null,
})
const polar = (status: string | null) => ({
  provider: 'polar' as const,
  status,
  stripe_subscription_id: null,
  polar_subscription_id: 'pol_1',
})

describe('subscriptionToEnd', () => {
  it.each(['active', 'trialing', 'past_due', 'unpaid', 'incomplete', 'paused'])(
    'a Stripe subscription that is %s must be canceled first',
    (status) => {
      expect(subscriptionToEnd(stripe(status))).toEqual({ provider: 'stripe', id: 'sub_1' })
    },
  )

  it('a Polar subscription that is active must be revoked first', () => {
    expect(subscriptionToEnd(polar('active'))).toEqual({ provider: 'polar', id: 'pol_1' })
  })

  it.each(['canceled', 'incomplete_expired', 'revoked'])('nothing to end when %s', (status) => {
    expect(subscriptionToEnd(stripe(status))).toBeNull()
    expect(subscriptionToEnd(polar(status))).toBeNull()
  })

  it('nothing to end without a subscription, a status or a provider id', () => {
    expect(subscriptionToEnd(null)).toBeNull()
    expect(subscriptionToEnd(stripe(null))).toBeNull()
    expect(subscriptionToEnd({ ...stripe('active'), stripe_subscription_id: null })).toBeNull()
    expect(subscriptionToEnd({ ...polar('active'), provider: null })).toBeNull()
  })
})

describe('subscriptionsToEnd', () => {
  const none = { stripe: [], polar: [] }

  it("ends the row's subscription and every other one the providers list that may still charge", () => {
    expect(
      subscriptionsToEnd(stripe('active'), {
        stripe: [
          { id: 'sub_1', status: 'active' },
          { id: 'sub_2', status: 'past_due' },
          { id: 'sub_3', status: 'canceled' },
        ],
        polar: [
          { id: 'pol_9', status: 'active' },
          { id: 'pol_8', status: 'incomplete_expired' },
        ],
      }),
    ).toEqual([
      { provider: 'stripe', id: 'sub_1' },
      { provider: 'stripe', id: 'sub_2' },
      { provider: 'polar', id: 'pol_9' },
    ])
  })

  it('finds untracked subscriptions without any row, and nothing when all are final', () => {
    expect(
      subscriptionsToEnd(null, { ...none, polar: [{ id: 'pol_1', status: 'trialing' }] }),
    ).toEqual([{ provider: 'polar', id: 'pol_1' }])
    expect(subscriptionsToEnd(stripe('canceled'), none)).toEqual([])
  })
})
