import type { SupabaseClient } from '@supabase/supabase-js'

import { readAccountSummary } from '~/account/summary.server'
import { billingProvider, billingProviders, endSubscription } from '~/billing/registry.server'
import type { AsUser } from '~/lib/database/database.server'
import { getSupabaseAdmin } from '~/lib/database/supabase-admin.server'
import { logger } from '~/lib/server/logger.server'
import { AVATAR_BUCKET } from '~/profile/profile.server'

import { type ProviderSubscription, subscriptionsToEnd } from './deletion-rules'

export type DeletionOutcome = { ok: true } | { ok: false; message: string }

const PROVIDER_FAILED =
  'We could not cancel your subscription with the payment provider, so your account has not been deleted. Please try again in a moment, or cancel it under Billing first.'
const DELETE_FAILED =
  'Your subscription has been canceled, but we could not delete your account. Please try again.'
const NOT_DELETED = 'We could not delete your account. Please try again.'

export async function deleteAccount(
  asUser: AsUser,
  user: { id: string; email: string },
): Promise<DeletionOutcome> {
  let live: ProviderSubscription[] = []
  const admin = getSupabaseAdmin()
  let step = 'subscriptions not read'
  try {
    const row = (await readAccountSummary(asUser)).subscription
    const providers = billingProviders()
    const listed = await Promise.all(providers.map((p) => p.userSubscriptions(row, user.id)))
    live = subscriptionsToEnd(row, Object.fromEntries(providers.map((p, i) => [p.id, listed[i]])))
    step = 'deletion mark not set'
    // The mark (app metadata, server-written): no other mail is queued from here; deleting the
    // user queues the one "account deleted" mail, naming the plan canceled (docs/notifications.md).
    const { error } = await admin.auth.admin.updateUserById(user.id, {
      app_metadata: {
        deletion_started_at: new Date().toISOString(),
        canceled_plan: live.length > 0 ? (row?.plan_name ?? 'subscription') : null,
      },
    })
    if (error) throw error
    step = 'provider cancellation failed'
    // No checkout left open can be paid once the account is gone (docs/webhooks.md).
    await Promise.all(providers.map((provider) => provider.expireCheckouts(row, user)))
    for (const { provider, id } of live) await endSubscription(billingProvider(provider)!, id)
  } catch (error) {
    logger.error({ user: user.id, err: error }, `account deletion: ${step}`)
    await unmarkDeletion(admin, user.id)
    return { ok: false, message: PROVIDER_FAILED }
  }
  await removeAllAvatars(admin, user.id)
  const { error } = await admin.auth.admin.deleteUser(user.id)
  if (error) {
    logger.error({ user: user.id, err: error }, 'account deletion: deleteUser failed')
    await unmarkDeletion(admin, user.id)
    return { ok: false, message: live.length > 0 ? DELETE_FAILED : NOT_DELETED }
  }
  logger.info({ user: user.id, canceled: live.length }, 'account deleted')
  return { ok: true }
}

/** Takes the mark off again after a failed deletion, so the account's mails resume. */
async function unmarkDeletion(admin: SupabaseClient, userId: string) {
  const { error } = await admin.auth.admin.updateUserById(userId, {
    app_metadata: { deletion_started_at: null, canceled_plan: null },
  })
  if (error) logger.error({ user: userId, err: error }, 'account deletion: mark not cleared')
}

async function removeAllAvatars(admin: SupabaseClient, userId: string) {
  const bucket = admin.storage.from(AVATAR_BUCKET)
  const listed = await bucket.list(userId, { limit: 1000 })
  const paths = (listed.data ?? [])
    .filter((item) => item.id)
    .map((item) => `${userId}/${item.name}`)
  const error = listed.error ?? (paths.length > 0 ? (await bucket.remove(paths)).error : null)
  if (error) logger.warn({ user: userId, err: error }, 'account deletion: avatars not removed')
}
