import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
import { isLiveStatus } from '~/subscriptions/status'
import { type ApplyResult, applySubscriptionEvent } from '~/subscriptions/store.server'
import type { PaymentRow, SubscriptionRow } from '~/subscriptions/types'

import type { ListedSubscription } from './provider'
import { billingProviders } from './registry.server'

/**
 * Reconciliation (docs/webhooks.md, "Events that never arrive"): what lost webhook events
 * would have written, applied through the ledger as `reconcile:<subscription id>:<read time>`.
 */

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
  /** What was read: what changed since then, or everything (null). */
  since: string | null
  /** Payments the provider holds that the ledger lacks; `result` as for differences. */
  missingPayments: { id: string; result?: string }[]
}

/** A changed-only pass starts a day before the ledger's newest event (older ones may be lost). */
const LOOK_BACK_MS = 86_400_000

type Table = 'payment_history' | 'user_subscriptions' | 'user_profiles'
const PAYMENT_ID = 'provider_payment_id'

/** The rows of `table` whose `column` is one of `values` (and of `provider`), 100 at a time. */
async function rowsWhere<Row>(table: Table, column: string, values: string[], provider?: string) {
  const rows: Row[] = []
  const filter = provider ? { provider } : {}
  for (let i = 0; i < values.length; i += 100) {
    const read = database().from(table).select('*').match(filter)
    const { data, error } = await read.in(column as never, values.slice(i, i + 100))
    if (error) throw databaseError('reconcile read', error)
    rows.push(...((data ?? []) as Row[]))
  }
  return rows
}

/** The users' rows; null for a deleted account (it has no profile either). */
type Rows = Map<string, SubscriptionRow | null>

/**
 * Live subscriptions nobody should pay for, as the ledger logs them (docs/webhooks.md): one
 * matching no user or a deleted account, a user's second one here or at another provider.
 */
function problemsOf(provider: string, listed: ListedSubscription[], rows: Rows) {
  const byUser = new Map<string | null, string[]>()
  for (const { userId, subscriptionId, fields } of listed)
    if (isLiveStatus(fields.status))
      byUser.set(userId, [...(byUser.get(userId) ?? []), subscriptionId])
  return [...byUser].flatMap(([userId, ids]) => {
    const row = userId ? rows.get(userId) : null
    const whose = userId ? `for the deleted account ${userId}` : 'matches no user'
    if (row === null) return ids.map((id) => `subscription ${id}: live, ${whose}`)
    if (row?.provider && row.provider !== provider && isLiveStatus(row.status))
      ids.push(`${row.provider} ${String(row[`${row.provider}_subscription_id` as never])}`)
    return ids.length > 1
      ? [`user ${userId}: ${ids.length} live subscriptions (${ids.join(', ')})`]
      : []
  })
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

/** A value as compared: a date by its time (an offset written `Z` or `+00:00` alike). */
const comparable = (value: unknown) =>
  typeof value === 'string' && /^\d{4}-/.test(value) ? Date.parse(value) : (value ?? null)

function subscriptionChanges(
  provider: string,
  row: SubscriptionRow | undefined,
  candidate: ListedSubscription,
): string[] {
  if (!row) return ['no row']
  const idColumn = `${provider}_subscription_id`
  const current = { ...candidate.fields, provider, [idColumn]: candidate.subscriptionId }
  return ['provider', idColumn, ...COMPARED].flatMap((column) => {
    const [was, is] = [row[column as never] as unknown, current[column as never] as unknown]
    if (is === undefined || was === is || comparable(was) === comparable(is)) return []
    return [`${column}: ${String(was)} → ${String(is)}`]
  })
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

/** Unless `check`, applies each difference in its own transaction (a failure throws). */
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
  // One naming no user is its holder's, as the ledger finds it (one read for all of them).
  const idColumn = `${provider}_subscription_id`
  const unnamed = listed.filter((item) => !item.userId).map((item) => item.subscriptionId)
  const holders = await rowsWhere<Record<string, string>>('user_subscriptions', idColumn, unnamed)
  for (const item of listed)
    item.userId ??= holders.find((row) => row[idColumn] === item.subscriptionId)?.user_id ?? null
  const candidates = newestPerUser(listed)
  const ids = candidates.map((candidate) => candidate.userId)
  const stored = await rowsWhere<SubscriptionRow>('user_subscriptions', 'user_id', ids)
  const rows: Rows = new Map(stored.map((row) => [row.user_id, row]))
  // A user with no row either lost its events or is gone: a deleted account has no profile.
  const rowless = ids.filter((id) => !rows.has(id))
  const kept = await rowsWhere<{ user_id: string }>('user_profiles', 'user_id', rowless)
  for (const id of rowless) if (!kept.some((profile) => profile.user_id === id)) rows.set(id, null)
  const differences: Difference[] = []
  for (const candidate of candidates) {
    const row = rows.get(candidate.userId)
    // Never a deleted account, nor a row another provider holds live (or with an ended one
    // here): the ledger would not apply it (docs/webhooks.md).
    const elsewhere = row?.provider && row.provider !== provider
    const ended = !isLiveStatus(candidate.fields.status)
    if (row === null || (elsewhere && (isLiveStatus(row.status) || ended))) continue
    const changes = subscriptionChanges(provider, row, candidate)
    if (changes.length === 0) continue
    const { userId, subscriptionId, fields } = candidate
    const id = `reconcile:${subscriptionId}:${readAt}`
    const event = { provider, id, type: 'reconcile.subscription', occurredAt: readAt }
    const result = options.check
      ? {}
      : { result: await applySubscriptionEvent(event, userId, fields) }
    differences.push({ userId, subscriptionId, changes, ...result })
  }
  // Payments no succeeded or refunded row holds (a failed row is not the payment).
  const payments = await adapter.listPayments(since)
  const paymentIds = payments.map((payment) => payment.id)
  const held = await rowsWhere<PaymentRow>('payment_history', PAYMENT_ID, paymentIds, provider)
  const found = new Set(held.filter((row) => row.status !== 'failed').map((row) => row[PAYMENT_ID]))
  const missingPayments = []
  for (const { id, record } of payments.filter((payment) => !found.has(payment.id)))
    missingPayments.push({ id, result: options.check ? undefined : await record() })
  return {
    provider,
    subscriptions: listed.length,
    users: candidates.length,
    differences,
    lastEvent: last,
    problems: problemsOf(provider, listed, rows),
    since: since?.toISOString() ?? null,
    missingPayments,
  }
}
