import type { SupabaseClient } from '@supabase/supabase-js'

import { readAccountSummary } from '~/account/summary.server'
import { billingProvider, billingProviders } from '~/billing/registry.server'
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

/** Ends every live subscription, then deletes the account (docs/decisions/0002-account-deletion.md). */
export async function deleteAccount(asUser: AsUser, userId: string): Promise<DeletionOutcome> {
  let live: ProviderSubscription[] = []
  const admin = getSupabaseAdmin()
  let step = 'subscriptions not read'
  try {
    const row = (await readAccountSummary(asUser)).subscription
    const listed = await Promise.all(
      billingProviders().map(async (provider) => [
        provider.id,
        await provider.userSubscriptions(row, userId),
      ]),
    )
    live = subscriptionsToEnd(row, Object.fromEntries(listed))
    step = 'deletion mark not set'
    // The mark (app metadata, which only the server writes): from here no other mail is queued
    // for the user, and deleting the user queues the one "account deleted" mail naming the
    // plan canceled (docs/notifications.md).
    const { error } = await admin.auth.admin.updateUserById(userId, {
      app_metadata: {
        deletion_started_at: new Date().toISOString(),
        canceled_plan: live.length > 0 ? (row?.plan_name ?? 'subscription') : null,
      },
    })
    if (error) throw error
    step = 'provider cancellation failed'
    for (const { provider, id } of live) await billingProvider(provider)?.cancelNow(id)
  } catch (error) {
    logger.error({ user: userId, err: error }, `account deletion: ${step}`)
    await unmarkDeletion(admin, userId)
    return { ok: false, message: PROVIDER_FAILED }
  }
  await removeAllAvatars(admin, userId)
  const { error } = await admin.auth.admin.deleteUser(userId)
  if (error) {
    logger.error({ user: userId, err: error }, 'account deletion: deleteUser failed')
    await unmarkDeletion(admin, userId)
    return { ok: false, message: live.length > 0 ? DELETE_FAILED : NOT_DELETED }
  }
  logger.info({ user: userId, canceled: live.length }, 'account deleted')
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
  const { data, error } = await bucket.list(userId, { limit: 1000 })
  if (error) {
    logger.warn({ user: userId, err: error }, 'account deletion: avatar listing failed')
    return
  }
  const paths = data.filter((item) => item.id).map((item) => `${userId}/${item.name}`)
  if (paths.length === 0) return
  const removed = await bucket.remove(paths)
  if (removed.error)
    logger.warn({ user: userId, err: removed.error }, 'account deletion: avatar removal failed')
}
