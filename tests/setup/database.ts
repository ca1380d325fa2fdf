import { randomUUID } from 'node:crypto'

import type { Database, Queryable } from '../local-stack/database'

// The suites clone the run's migrated database (./global-setup.ts) as the local stack's own
// tests do, with the stack's helper.
export { createTestDatabase } from '../local-stack/testing/database'

/** The `value` column of the first row a query gives. */
export async function value<T = string>(db: Queryable, sql: string, params: unknown[] = []) {
  const { rows } = await db.query<{ value: T }>(sql, params)
  return rows[0].value
}

/** A new user in auth.users (its profile comes with it); its id. */
export async function newUser(db: Queryable, email?: string, id = randomUUID()) {
  await db.query(`insert into auth.users (id, email) values ($1, $2)`, [
    id,
    email ?? `${id}@example.com`,
  ])
  return id
}

/** apply_subscription_event as the webhooks call it; its result. */
export function applySubscription(
  db: Queryable,
  provider: string,
  eventId: string,
  at: string,
  userId: string | null,
  fields: object,
) {
  return value(
    db,
    `select public.apply_subscription_event($1, $2, 'subscription.updated', $3, $4, $5) as value`,
    [provider, eventId, at, userId, JSON.stringify(fields)],
  )
}

/** record_payment_event as the webhooks call it; its result. */
export function recordPayment(db: Queryable, provider: string, eventId: string, payment: object) {
  return value(
    db,
    `select public.record_payment_event($1, $2, 'invoice.payment_succeeded', now(), $3) as value`,
    [provider, eventId, JSON.stringify(payment)],
  )
}

/** fn in a transaction as an API role with the user's JWT claims, as PostgREST runs a request. */
export function asRole<T>(
  db: Database,
  role: 'anon' | 'authenticated' | 'service_role',
  userId: string | null,
  fn: (tx: Queryable) => Promise<T>,
) {
  const claims = userId ? { sub: userId, role, aud: 'authenticated' } : { role }
  return db.transaction(fn, { settings: { role, 'request.jwt.claims': JSON.stringify(claims) } })
}
