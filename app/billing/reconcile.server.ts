import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { isLiveStatus } from '~/subscriptions/status'
import { type ApplyResult, applySubscriptionEvent } from '~/subscriptions/store.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import type { ListedSubscription } from './provider'
import { billingProviders } from './registry.server'

/**
 * Reconciliation: reads each provider's subscriptions as they are now and applies, through
 * the webhook ledger's own function (`apply_subscription_event`), those that the database
 * does not reflect. It recovers what lost webhook events would have written (an endpoint
 * the provider disabled, events it stopped retrying). Rules:
 * - the user of a subscription is found as its webhooks find it (each provider's
 *   `listSubscriptions`);
 * - per user, only the newest subscription of the provider counts (the row is one per user);
 * - the snapshot is applied as an event that occurred when the provider was read, with the
 *   id `reconcile:<subscription id>:<time>`: an event older than the read that arrives later
 *   (a re-send) is then `stale`, a newer one still wins;
 * - a row that already matches is left alone (no ledger entry, `last_event_at` unchanged).
 */

/** The columns compared between the provider and the row. */
const COMPARED = [
  'status',
  'plan_name',
  'cancel_at_period_end',
  'current_period_start',
  'current_period_end',
  'canceled_at',
] as const

export interface Difference {
  userId: string
  subscriptionId: string
  /** `column: stored → provider`, for each column that differs (or `no row`). */
  changes: string[]
  /** What the ledger answered; absent in a check. */
  result?: ApplyResult
}

export interface ProviderReport {
  provider: string
  /** Subscriptions the provider listed. */
  subscriptions: number
  /** Of those, the ones whose user was found (newest per user). */
  users: number
  differences: Difference[]
  /** The newest event the ledger holds for the provider. */
  lastEvent: { id: string; type: string; receivedAt: string } | null
  /** Live subscriptions that match no user, and users paying for more than one. */
  problems: string[]
}

/** Live subscriptions no user is found for, and users holding more than one live one. */
function problemsOf(listed: ListedSubscription[]) {
  const byUser = new Map<string | null, string[]>()
  for (const { userId, subscriptionId, fields } of listed)
    if (isLiveStatus(fields.status))
      byUser.set(userId, [...(byUser.get(userId) ?? []), subscriptionId])
  return [...byUser].flatMap(([userId, ids]) =>
    userId === null
      ? ids.map((id) => `subscription ${id}: live, matches no user`)
      : ids.length > 1
        ? [`user ${userId}: ${ids.length} live subscriptions (${ids.join(', ')})`]
        : [],
  )
}

/** The newest subscription of each user found (by creation, then as listed). */
function newestPerUser(candidates: ListedSubscription[]) {
  const byUser = new Map<string, ListedSubscription & { userId: string }>()
  for (const { userId, ...candidate } of candidates) {
    if (!userId) continue
    const known = byUser.get(userId)
    if (!known || candidate.createdAt > known.createdAt)
      byUser.set(userId, { userId, ...candidate })
  }
  return [...byUser.values()]
}

async function storedRows(userIds: string[]) {
  const rows = new Map<string, SubscriptionRow>()
  for (let i = 0; i < userIds.length; i += 100) {
    const { data, error } = await database()
      .from('user_subscriptions')
      .select('*')
      .in('user_id', userIds.slice(i, i + 100))
    if (error) throw databaseError('reconcile read', error)
    for (const row of (data ?? []) as SubscriptionRow[]) rows.set(row.user_id, row)
  }
  return rows
}

function same(a: unknown, b: unknown) {
  if (a === b || (a == null && b == null)) return true
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [Date.parse(a), Date.parse(b)]
    if (!Number.isNaN(x) && !Number.isNaN(y) && /^\d{4}-/.test(a) && /^\d{4}-/.test(b))
      return x === y
  }
  return false
}

/** What differs between the stored row and the provider's subscription. */
function subscriptionChanges(
  provider: string,
  row: SubscriptionRow | undefined,
  candidate: ListedSubscription,
): string[] {
  if (!row) return ['no row']
  const changes: string[] = []
  const idColumn = `${provider}_subscription_id`
  const stored = (row as Record<string, unknown>)[idColumn]
  if (row.provider !== provider) changes.push(`provider: ${row.provider} → ${provider}`)
  if (stored !== candidate.subscriptionId)
    changes.push(`${idColumn}: ${String(stored)} → ${candidate.subscriptionId}`)
  for (const column of COMPARED) {
    const [stored, current] = [row[column], candidate.fields[column]]
    if (current !== undefined && !same(stored, current))
      changes.push(`${column}: ${String(stored)} → ${String(current)}`)
  }
  return changes
}

async function lastEvent(provider: string) {
  const { data, error } = await database()
    .from('webhook_events')
    .select('id:event_id, type:event_type, receivedAt:received_at')
    .eq('provider', provider)
    .order('received_at', { ascending: false })
    .limit(1)
    .maybeSingle()
  if (error) throw databaseError('ledger read', error)
  return data
}

/**
 * Compares one provider's subscriptions with the database and, unless `check`, applies the
 * differences through the ledger. Provider or database failures throw (nothing half-done:
 * each application is its own transaction).
 */
export async function reconcileProvider(
  provider: string,
  options: { check?: boolean } = {},
): Promise<ProviderReport> {
  const adapter = billingProviders().find((candidate) => candidate.id === provider)
  if (!adapter) throw new Error(`${provider} is not one of BILLING_PROVIDERS`)
  const readAt = new Date().toISOString()
  const listed = await adapter.listSubscriptions()
  const candidates = newestPerUser(listed)
  const rows = await storedRows(candidates.map((c) => c.userId))
  const differences: Difference[] = []
  for (const candidate of candidates) {
    const changes = subscriptionChanges(provider, rows.get(candidate.userId), candidate)
    if (changes.length === 0) continue
    const { userId, subscriptionId, fields } = candidate
    const id = `reconcile:${subscriptionId}:${readAt}`
    const event = { provider, id, type: 'reconcile.subscription', occurredAt: readAt }
    const result = options.check
      ? {}
      : { result: await applySubscriptionEvent(event, userId, fields) }
    differences.push({ userId, subscriptionId, changes, ...result })
  }
  return {
    provider,
    subscriptions: listed.length,
    users: candidates.length,
    differences,
    lastEvent: await lastEvent(provider),
    problems: problemsOf(listed),
  }
}
