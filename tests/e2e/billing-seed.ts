import Stripe from 'stripe'

import { LOCAL_DEFAULTS } from '../../app/env.server'
import type { TablesInsert } from '../../supabase/database.types'
import { adminClient, expect } from './fixtures'
import { E2E } from './ports'

/** Billing rows seeded with the service role, for states a checkout cannot easily reach. */

export const DAY_MS = 86_400_000

/** An ISO timestamp `days` from now (negative for the past), at noon UTC so dates are stable. */
export function daysFromNow(days: number) {
  const date = new Date(Date.now() + days * DAY_MS)
  date.setUTCHours(12, 0, 0, 0)
  return date.toISOString()
}

export function shownDate(iso: string) {
  return new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(iso),
  )
}

export type SeededSubscription = Partial<TablesInsert<'user_subscriptions'>>

/** Inserts the user's subscription row: an active monthly Stripe Pro plan unless told otherwise. */
export async function seedSubscription(userId: string, fields: SeededSubscription = {}) {
  const provider = fields.provider ?? 'stripe'
  const row: Record<string, unknown> = {
    user_id: userId,
    provider,
    status: 'active',
    plan_name: 'Pro',
    billing_cycle: 'month',
    current_period_start: daysFromNow(-10),
    current_period_end: daysFromNow(20),
    ...(provider === 'stripe'
      ? { stripe_customer_id: 'cus_seeded_unknown', stripe_subscription_id: 'sub_seeded' }
      : { polar_customer_id: crypto.randomUUID(), polar_subscription_id: crypto.randomUUID() }),
    ...fields,
  }
  const { error } = await adminClient().from('user_subscriptions').insert(row)
  if (error) throw new Error(`seeding the subscription failed: ${error.message}`)
}

export type SeededPayment = Partial<TablesInsert<'payment_history'>> & {
  amount: number
  created_at: string
}

export async function seedPayments(userId: string, payments: SeededPayment[]) {
  const rows = payments.map((payment) => {
    const provider = payment.provider ?? 'stripe'
    return {
      user_id: userId,
      provider,
      currency: 'usd',
      amount_refunded: 0,
      status: 'paid',
      description: null,
      invoice_url: null,
      ...payment,
      provider_payment_id: `${provider === 'stripe' ? 'in_seeded_' : ''}${crypto.randomUUID()}`,
    }
  })
  const { error } = await adminClient().from('payment_history').insert(rows)
  if (error) throw new Error(`seeding payments failed: ${error.message}`)
}

export const emulatorStripe = () =>
  new Stripe(LOCAL_DEFAULTS.STRIPE_SECRET_KEY, {
    host: '127.0.0.1',
    port: E2E.stripePort,
    protocol: 'http',
    maxNetworkRetries: 0,
  })

export async function createStripeCustomer(email: string) {
  return (await emulatorStripe().customers.create({ email })).id
}

export async function stripeSubscriptionIdOf(userId: string) {
  let id: string | null | undefined
  await expect(async () => {
    const { data } = await adminClient()
      .from('user_subscriptions')
      .select('stripe_subscription_id')
      .eq('user_id', userId)
      .maybeSingle<{ stripe_subscription_id: string | null }>()
    id = data?.stripe_subscription_id
    expect(id).toBeTruthy()
  }).toPass({ timeout: 20_000 })
  return id!
}

async function atEmulator(url: string, body?: object) {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' } }
  const response = await fetch(
    url,
    body ? { ...post, body: JSON.stringify(body) } : { method: 'DELETE' },
  )
  expect(response.ok, url).toBe(true)
}

/** Moves the emulator's subscription to its next period: renewed, or declined with `fail`. */
export const renewAtStripe = (subscriptionId: string, body: { fail?: boolean } = {}) =>
  atEmulator(`${E2E.stripeUrl}/_emulator/subscriptions/${subscriptionId}/renew`, body)
export const stripeFaults = (fault?: object) =>
  atEmulator(`${E2E.stripeUrl}/_emulator/faults`, fault)
export const triggerAtPolar = (event: object) =>
  atEmulator(`${E2E.polarUrl}/_emulator/trigger`, event)

/** The user's own customer at the Polar emulator, bound to them by external id as the app does. */
export async function createPolarCustomer(userId: string, email: string) {
  const created = await fetch(`${E2E.polarUrl}/v1/customers/`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${LOCAL_DEFAULTS.POLAR_ACCESS_TOKEN}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ email, external_id: userId }),
  })
  if (!created.ok) throw new Error(`Polar customer creation failed: ${created.status}`)
  return ((await created.json()) as { id: string }).id
}
