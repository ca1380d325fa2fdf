import { invalid, type Param, type Params } from './http'
import { list, type ListObject } from './objects'
import type { Store } from './store'

export function expandPaths(params: Params): string[] {
  const value = params.expand ?? []
  return [value].flat().filter((item): item is string => typeof item === 'string')
}

export function applyExpand(store: Store, body: unknown, paths: string[]) {
  if (paths.length === 0) return body
  const copy = structuredClone(body)
  for (const path of paths) {
    const segments = path.split('.')
    if (segments.length > 4) {
      throw invalid(
        `You cannot expand more than 4 levels of a property. Property: ${path}`,
        'expand',
      )
    }
    expandAt(store, copy, segments, path)
  }
  return copy
}

function expandAt(store: Store, node: unknown, segments: string[], path: string): void {
  if (Array.isArray(node)) {
    node.forEach((item) => expandAt(store, item, segments, path))
    return
  }
  if (typeof node !== 'object' || node === null) return
  const record = node as Record<string, unknown>
  const [head, ...rest] = segments
  if (!(head in record)) {
    const included = includable(store, record, head)
    if (included === undefined) {
      throw invalid(`This property cannot be expanded (${path}).`, 'expand')
    }
    record[head] = structuredClone(included)
  }
  // An id on the way is expanded too (`data.payment.payment_intent.payment_method`).
  const found = typeof record[head] === 'string' && store.lookup(record[head])
  if (found) record[head] = structuredClone(found)
  if (rest.length > 0) expandAt(store, record[head], rest, path)
}

/** "Includable" fields, present only when `expand[]` names them: the first page of a list. */
function includable(store: Store, record: Record<string, unknown>, field: string) {
  const id = String(record.id)
  if (record.object === 'checkout.session' && field === 'line_items') {
    const items = store.checkoutExtras.get(id)?.lineItems ?? []
    return paginate(items, {}, `/v1/checkout/sessions/${id}/line_items`)
  }
  if (record.object === 'invoice' && field === 'payments') {
    return paginate(store.paymentsOf(id), {}, `/v1/invoice_payments?invoice=${id}`)
  }
  return undefined
}

/** Stripe list semantics: newest first, `limit` (1–100, default 10), `starting_after` an id. */
export function paginate<T extends { id: string }>(
  itemsNewestFirst: T[],
  params: Params,
  url: string,
): ListObject<T> {
  const limitText = typeof params.limit === 'string' ? params.limit : '10'
  const limit = Number(limitText)
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw invalid(
      'This value must be greater than or equal to 1 and less than or equal to 100.',
      'limit',
    )
  }
  let items = itemsNewestFirst
  if (typeof params.starting_after === 'string') {
    const index = items.findIndex((item) => item.id === params.starting_after)
    items = index === -1 ? [] : items.slice(index + 1)
  }
  return list(items.slice(0, limit), url, items.length > limit)
}

/** Newest first by `created`, ties broken by insertion order (latest inserted first). */
export function newestFirst<T extends { id: string }>(values: Iterable<T>): T[] {
  const created = (value: T) => Number((value as { created?: unknown }).created ?? 0)
  return [...values]
    .map((value, index) => ({ value, index }))
    .sort((a, b) => created(b.value) - created(a.value) || b.index - a.index)
    .map((entry) => entry.value)
}

const RANGE = {
  gt: (a: number, b: number) => a > b,
  gte: (a: number, b: number) => a >= b,
  lt: (a: number, b: number) => a < b,
  lte: (a: number, b: number) => a <= b,
}

/** The `created` filter of list endpoints: a Unix time, or a range of `gt`, `gte`, `lt`, `lte`. */
export function createdFilter(param: Param | undefined): (item: object) => boolean {
  if (param === undefined) return () => true
  const bound = (value: Param, name: string) => {
    if (typeof value !== 'string' || !/^-?\d+$/.test(value))
      throw invalid(`Invalid integer: ${String(value)}`, name)
    return Number(value)
  }
  if (typeof param === 'string') {
    const at = bound(param, 'created')
    return (item) => createdOf(item) === at
  }
  if (Array.isArray(param)) throw invalid('Invalid hash', 'created')
  const checks = Object.entries(param).map(([key, value]) => {
    const name = `created[${key}]`
    if (!(key in RANGE))
      throw invalid(`Received unknown parameter: ${name}`, name, 'parameter_unknown')
    const limit = bound(value, name)
    return (created: number) => RANGE[key as keyof typeof RANGE](created, limit)
  })
  return (item) => checks.every((check) => check(createdOf(item)))
}

const createdOf = (item: object) => Number((item as { created?: unknown }).created)
