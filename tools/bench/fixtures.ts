import { randomUUID } from 'node:crypto'

import { createServerClient, serializeCookieHeader } from '@supabase/ssr'

import { PASSWORD } from '../../tests/integration/accounts'
import {
  polarEvent,
  subscriptionObject as polarSubscriptionObject,
} from '../../tests/integration/polar-fixtures'
import {
  invoiceObject,
  stripeEvent,
  subscriptionObject,
} from '../../tests/integration/stripe-fixtures'
import { createUsers, signedHeaders } from '../setup'

/** A user's session cookies as a browser holds them in production (app/auth/cookies.server.ts). */
export async function signInCookie(env: Record<string, string>, email: string) {
  const jar = new Map<string, string>()
  const client = createServerClient(env.SUPABASE_URL, env.SUPABASE_ANON_KEY, {
    cookies: {
      getAll: () => [...jar].map(([name, value]) => ({ name, value })),
      setAll: (cookies) => {
        for (const { name, value } of cookies) jar.set(name, value)
      },
    },
  })
  const { error } = await client.auth.signInWithPassword({ email, password: PASSWORD })
  if (error) throw new Error(`sign-in failed: ${error.message}`)
  return [...jar]
    .filter(([, value]) => value)
    .map(([name, value]) => serializeCookieHeader(`__Host-${name}`, value, {}).split(';')[0])
    .join('; ')
}

async function postStripe(origin: string, event: object) {
  const body = JSON.stringify(event)
  const response = await fetch(`${origin}/api/webhooks/stripe`, {
    method: 'POST',
    headers: signedHeaders('stripe', body, ''),
    body,
  })
  if (!response.ok) throw new Error(`Stripe event: ${response.status} ${await response.text()}`)
}

export interface Request {
  body?: string
  headers?: Record<string, string>
}

/** Webhook writers, a signed-in reader with a subscription and 12 payments, a duplicate event. */
export async function benchFixtures(origin: string, env: Record<string, string>) {
  const [stripeUsers, polarUsers, [reader]] = await Promise.all([
    createUsers(env.SUPABASE_URL, 20, 'bench-stripe'),
    createUsers(env.SUPABASE_URL, 20, 'bench-polar'),
    createUsers(env.SUPABASE_URL, 1, 'bench-reader'),
  ])
  const cookie = await signInCookie(env, reader.email)
  const ids = { subscription: 'sub_bench_reader', userId: reader.id, customer: 'cus_bench_reader' }
  const object = subscriptionObject({ ...ids, id: ids.subscription })
  await postStripe(origin, stripeEvent('customer.subscription.updated', object))
  for (let index = 0; index < 12; index++)
    await postStripe(origin, stripeEvent('invoice.payment_succeeded', invoiceObject(ids)))
  const duplicate = JSON.stringify(
    stripeEvent(
      'customer.subscription.updated',
      subscriptionObject({
        id: `sub_bench_${stripeUsers[0].id.slice(0, 8)}`,
        userId: stripeUsers[0].id,
      }),
      { id: `evt_bench_duplicate_${randomUUID()}`, created: 1_700_000_000 },
    ),
  )
  await postStripe(origin, JSON.parse(duplicate) as object)

  let counter = 0
  const stripeWrite = (): Request => {
    const user = stripeUsers[counter++ % stripeUsers.length]
    const body = JSON.stringify(
      stripeEvent(
        'customer.subscription.updated',
        subscriptionObject({
          id: `sub_bench_${user.id.slice(0, 8)}`,
          userId: user.id,
          customer: `cus_bench_${user.id.slice(0, 8)}`,
        }),
        { id: `evt_bench_${randomUUID()}` },
      ),
    )
    return { body, headers: signedHeaders('stripe', body, '') }
  }
  const polarWrite = (): Request => {
    const user = polarUsers[counter++ % polarUsers.length]
    const body = JSON.stringify(
      polarEvent(
        'subscription.updated',
        polarSubscriptionObject({
          id: `00000000-0000-4000-8000-${user.id.slice(-12)}`,
          userId: user.id,
        }),
      ),
    )
    return { body, headers: signedHeaders('polar', body, `msg_bench_${randomUUID()}`) }
  }
  const duplicateWrite = (): Request => ({
    body: duplicate,
    headers: signedHeaders('stripe', duplicate, ''),
  })
  return { reader, cookie, stripeWrite, polarWrite, duplicateWrite, duplicate }
}

export const CONTACT_BODY = JSON.stringify({
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'I would like to know more about the Pro plan for my team.',
})

/** A client address per request (198.18.0.0/15 is the benchmarking range). */
const client = (range: number, index: number) => `198.${range}.${(index >> 8) & 255}.${index & 255}`

export const contactRequest = (index: number): Request => ({
  headers: { 'content-type': 'application/json', 'x-forwarded-for': client(18, index) },
})

const WRONG_PASSWORD = { intent: 'password', password: 'not-the-password-1' }
const MAGIC_LINK = { intent: 'magic-link' }
/** The auth forms an attack posts, and what each answers when it works. */
export const AUTH_FORMS = [
  { name: 'POST /sign-in, wrong password', path: '/sign-in', fields: WRONG_PASSWORD, status: 400 },
  { name: 'POST /sign-in, magic link', path: '/sign-in', fields: MAGIC_LINK, status: 303 },
  { name: 'POST /forgot-password', path: '/forgot-password', fields: {} },
]

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
      'x-forwarded-for': client(19, index),
    },
  }
}
