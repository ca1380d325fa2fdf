import type { SupabaseClient } from '@supabase/supabase-js'
import type Stripe from 'stripe'

import { catalogPlan } from '../../app/billing/plans.test-support'

/** Users and subscriptions as the integration and browser suites both make them. */

export const PASSWORD = 'correct-horse-battery'

/** Creates a user (confirmed unless told otherwise) with the service-role client. */
export async function createAccount(
  admin: SupabaseClient,
  email: string,
  { password = PASSWORD, confirmed = true } = {},
) {
  const { data, error } = await admin.auth.admin.createUser({
    email,
    password,
    email_confirm: confirmed,
  })
  if (error || !data.user) throw new Error(`createUser failed: ${error?.message}`)
  return { id: data.user.id, email, password }
}

/** A live Stripe subscription of the user's (Pro unless another price is named). */
export async function subscribeAtStripe(
  stripe: Stripe,
  user: { id: string; email: string },
  price = catalogPlan('pro').stripe.priceId,
) {
  const customer = await stripe.customers.create({
    email: user.email,
    metadata: { user_id: user.id },
  })
  const subscription = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price }],
    metadata: { user_id: user.id },
  })
  return { customer, subscription }
}
