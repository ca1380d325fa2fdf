import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { type ApplyResult, applySubscriptionEvent } from '~/subscriptions/store.server'
import type { SubscriptionRow } from '~/subscriptions/types'

import type { ListedPayment, ListedSubscription } from './provider'
import { billingProviders } from './registry.server'

/**
 * Reconciliation (docs/decisions/0018, 0067): applies through the ledger what lost webhook
 * events would have written. A user's newest subscription counts; its snapshot is an event
 * `reconcile:<subscription id>:<read time>`, so a re-sent older event is then `stale`; a row
 * that already matches is left alone.
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
  /** What was read: what changed since then, or everything (null). */
  since: string | null
  /** Payments the provider holds that the ledger lacks; `result` as for differences. */
  missingPayments: { id: string; result?: string }[]
}

/**
 * How far before the ledger's newest event a changed-only pass looks: events made before it
 * may arrive after it (retried, overtaken), or be lost while later ones arrive.
 */
const LOOK_BACK_MS = 86_400_000

/** The payments no succeeded or refunded row holds. */
async function unrecorded(payments: ListedPayment[]) {
  const found = new Set<string>()
  for (let i = 0; i < payments.length; i += 100) {
    const column = payments[i].column
    const ids = payments.slice(i, i + 100).map((payment) => payment.id)
    const { data, error } = await database()
      .from('payment_history')
      .select(column)
      .in(column, ids)
      .neq('status', 'failed')
    if (error) throw databaseError('reconcile read', error)
    for (const row of (data ?? []) as unknown as Record<string, string>[]) found.add(row[column])
  }
  return payments.filter((payment) => !found.has(payment.id))
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
    const stored = row[column]
    const current = candidate.fields[column]
    if (current === undefined) continue
    if (!same(stored, current)) changes.push(`${column}: ${String(stored)} → ${String(current)}`)
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
  options: { check?: boolean; full?: boolean } = {},
): Promise<ProviderReport> {
  const adapter = billingProviders().find((candidate) => candidate.id === provider)
  if (!adapter) throw new Error(`${provider} is not one of BILLING_PROVIDERS`)
  const readAt = new Date().toISOString()
  const last = await lastEvent(provider)
  const since =
    options.full || !last ? undefined : new Date(Date.parse(last.receivedAt) - LOOK_BACK_MS)
  const listed = await adapter.listSubscriptions(since)
  const candidates = newestPerUser(listed)
  const rows = await storedRows(candidates.map((c) => c.userId))
  const differences: Difference[] = []
  for (const candidate of candidates) {
    const changes = subscriptionChanges(provider, rows.get(candidate.userId), candidate)
    if (changes.length === 0) continue
    const difference: Difference = {
      userId: candidate.userId,
      subscriptionId: candidate.subscriptionId,
      changes,
    }
    if (!options.check) {
      difference.result = await applySubscriptionEvent(
        {
          provider,
          id: `reconcile:${candidate.subscriptionId}:${readAt}`,
          type: 'reconcile.subscription',
          occurredAt: readAt,
        },
        candidate.userId,
        candidate.fields,
      )
    }
    differences.push(difference)
  }
  const missingPayments = []
  for (const payment of await unrecorded(await adapter.listPayments(since)))
    missingPayments.push({
      id: payment.id,
      result: options.check ? undefined : await payment.record(),
    })
  return {
    provider,
    subscriptions: listed.length,
    users: candidates.length,
    differences,
    lastEvent: last,
    since: since?.toISOString() ?? null,
    missingPayments,
  }
}
