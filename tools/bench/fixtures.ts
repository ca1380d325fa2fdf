/**
 * The benchmark's fixtures: confirmed users made through the stack's admin API, a signed-in
 * user's session cookies as a browser holds them, and signed webhook deliveries.
 */
import { randomUUID } from 'node:crypto'

import { createServerClient, serializeCookieHeader } from '@supabase/ssr'
import { createClient } from '@supabase/supabase-js'
import Stripe from 'stripe'

import { LOCAL_DEFAULTS } from '../../app/env.server'
import {
  invoiceObject,
  stripeEvent,
  subscriptionObject,
} from '../../tests/integration/stripe-fixtures'
import { signWebhook } from '../../tests/local-stack/polar/webhooks'
import { LOCAL_SERVICE_ROLE_KEY } from '../../tests/local-stack/supabase/keys'

const PASSWORD = 'correct-horse-battery'

export async function createUsers(supabaseUrl: string, count: number, label: string) {
  const admin = createClient(supabaseUrl, LOCAL_SERVICE_ROLE_KEY, {
    auth: { persistSession: false, autoRefreshToken: false },
  })
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const email = `bench-${label}-${index}-${Date.now().toString(36)}@example.com`
      const { data, error } = await admin.auth.admin.createUser({
        email,
        password: PASSWORD,
        email_confirm: true,
      })
      if (error || !data.user) throw new Error(`createUser failed: ${error?.message}`)
      return { id: data.user.id, email }
    }),
  )
}

/**
 * Session cookies of a user, as the browser would hold them after signing in to the app in
 * production: `__Host-`-prefixed (app/auth/cookies.server.ts, `sessionCookieOptions`).
 */
export async function signInCookie(env: Record<string, string>, email: string) {
  const jar = new Map<string, string>()
  const client = createServerClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    cookies: {
      getAll: () => [...jar].map(([name, value]) => ({ name, value })),
      setAll: (cookies) => {
        for (const { name, value } of cookies) {
          if (value) jar.set(name, value)
          else jar.delete(name)
        }
      },
    },
  })
  const { error } = await client.auth.signInWithPassword({ email, password: PASSWORD })
  if (error) throw new Error(`sign-in failed: ${error.message}`)
  return [...jar]
    .map(([name, value]) => serializeCookieHeader(`__Host-${name}`, value, {}).split(';')[0])
    .join('; ')
}

export const stripeHeaders = (body: string) => ({
  'content-type': 'application/json',
  'stripe-signature': Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: LOCAL_DEFAULTS.STRIPE_WEBHOOK_SECRET,
  }),
})

/** Standard Webhooks headers of a Polar delivery of `body`, signed now with a fresh id. */
export function polarHeaders(body: string, id: string) {
  const timestamp = Math.floor(Date.now() / 1000)
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(LOCAL_DEFAULTS.POLAR_WEBHOOK_SECRET, id, timestamp, body),
  }
}

/** Posts `body` to the app; anything but a 2xx throws. */
export async function post(
  origin: string,
  pathname: string,
  body: string,
  headers: Record<string, string>,
) {
  const response = await fetch(`${origin}${pathname}`, { method: 'POST', headers, body })
  if (!response.ok) throw new Error(`POST ${pathname}: ${response.status} ${await response.text()}`)
}

/**
 * A subscriber with history, through the app's own Stripe webhook: a subscription, then
 * `payments` paid invoices. Returns the subscription's id.
 */
export async function seedSubscriber(
  origin: string,
  user: { id: string },
  options: { label: string; payments: number },
) {
  const subscription = `sub_${options.label}_${Date.now().toString(36)}`
  const customer = `cus_${options.label}`
  const seed = JSON.stringify(
    stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({ id: subscription, userId: user.id, customer }),
    ),
  )
  await post(origin, '/api/webhooks/stripe', seed, stripeHeaders(seed))
  for (let index = 0; index < options.payments; index++) {
    const body = JSON.stringify(
      stripeEvent(
        'invoice.payment_succeeded',
        invoiceObject({ subscription, userId: user.id, customer }),
      ),
    )
    await post(origin, '/api/webhooks/stripe', body, stripeHeaders(body))
  }
  return subscription
}

export const CONTACT_BODY = JSON.stringify({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'I would like to know more about the Pro plan for my team.',
})

/** A contact post's headers: one client per request (198.18.0.0/15 is the benchmarking range; a header, never a target). */
export const contactRequest = (index: number) => ({
  headers: {
    'content-type': 'application/json',
    'x-forwarded-for': `198.18.${(index >> 8) & 255}.${index & 255}`,
  },
})

/**
 * An auth form as an attack sends it: a new address and client every time (so that no limit
 * is what is measured), every counter of the form checked.
 */
export function authFormRequest(siteUrl: string, fields: Record<string, string>, index: number) {
  return {
    body: new URLSearchParams({
      ...fields,
      email: `bench-nobody-${index}-${randomUUID().slice(0, 8)}@example.com`,
    }).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      // The host the browser would name: Remix refuses an action whose Origin differs.
      host: new URL(siteUrl).host,
      origin: siteUrl,
      'x-forwarded-for': `198.19.${(index >> 8) & 255}.${index & 255}`,
    },
  }
}
