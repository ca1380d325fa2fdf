import type { SessionUser } from '~/auth/session.server'
import { httpStatusOf } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'

import { getPolar } from './client.server'

/** A user whose Polar customer cannot be bound to them (its email belongs to someone else's). */
export class PolarCustomerConflict extends Error {}

/**
 * The user's own Polar customer: the one whose `external_id` is the user's id, looked up
 * or created here, on the server, with the user's own (verified) email. Polar keeps one
 * customer per email in an organization, so when a customer with that email exists and is
 * bound to nobody (an earlier anonymous checkout with this address), it is bound to the user;
 * if it is bound to somebody else, the user gets no customer: a checkout is never attached
 * to another user's customer.
 */
export async function ensurePolarCustomer(user: SessionUser): Promise<string> {
  if (!user.email) throw new PolarCustomerConflict('A Polar customer needs an email address')
  const polar = getPolar('checkout')
  try {
    return (await polar.customers.getExternal(user.id)).id
  } catch (error) {
    if (httpStatusOf(error) !== 404) throw error
  }
  try {
    const created = await polar.customers.create({ email: user.email, external_id: user.id })
    return created.id
  } catch (error) {
    if (httpStatusOf(error) !== 422) throw error
  }
  // The email is taken: by a customer bound to nobody (bind it), or to someone else.
  const { items } = await polar.customers.list({ email: user.email })
  const email = user.email.toLowerCase()
  const existing = items.find((customer) => customer.email?.toLowerCase() === email)
  if (!existing || (existing.external_id && existing.external_id !== user.id)) {
    logger.warn({ user: user.id }, 'polar: customer email bound to another user')
    throw new PolarCustomerConflict('The Polar customer with this email belongs to another account')
  }
  if (existing.external_id === user.id) return existing.id
  await polar.customers.update(existing.id, { external_id: user.id })
  return existing.id
}
