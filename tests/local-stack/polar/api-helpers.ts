import { notFound, type Req, ValidationFailed } from './http'
import { assertUuid } from './validation'

/** Query and lookup helpers shared by the /v1 route files. */

export function paging(req: Req) {
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1)
  const limit = Math.min(100, Math.max(1, Number(req.query.get('limit') ?? 10) || 10))
  return { page, limit }
}

/** Keeps items whose `key` is in the repeated query parameter `name`, when given. */
export function filterBy<T>(items: T[], req: Req, name: string, key: (item: T) => string | null) {
  const wanted = req.query.getAll(name)
  return wanted.length === 0 ? items : items.filter((item) => wanted.includes(key(item) ?? ''))
}

/** Newest first; records created in the same millisecond keep reverse insertion order. */
export function newestFirst<T extends { created_at: string }>(items: T[]) {
  return [...items].reverse().sort((a, b) => b.created_at.localeCompare(a.created_at))
}

export function bodyError(loc: string, msg: string, input: unknown) {
  return new ValidationFailed([{ type: 'value_error', loc: ['body', loc], msg, input }])
}

/** Finds a record by its UUID path parameter: 422 when malformed, 404 when unknown. */
export function lookup<T>(map: Map<string, T>, id: string, what: string) {
  assertUuid(id)
  const found = map.get(id)
  if (!found) throw notFound(`${what} not found`)
  return found
}

/**
 * Polar's date filters (`started_after`, `canceled_at_before`, `created_after`, …): on or
 * after, or on or before, the query's time; an item without the date is left out. The value
 * must be a datetime with its offset (pydantic's `AwareDatetime`): else 422, as Polar answers.
 */
export function filterByDate<T>(
  items: T[],
  req: Req,
  name: `${string}_${'after' | 'before'}`,
  key: (item: T) => string | null,
) {
  const value = req.query.get(name)
  if (value === null) return items
  const at = Date.parse(value)
  if (!/^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:?\d\d)$/i.test(value) || Number.isNaN(at)) {
    const msg = 'Input should be a valid datetime with timezone info'
    throw new ValidationFailed([
      { type: 'timezone_aware', loc: ['query', name], msg, input: value },
    ])
  }
  const after = name.endsWith('_after')
  return items.filter((item) => {
    const date = key(item)
    return date !== null && (after ? Date.parse(date) >= at : Date.parse(date) <= at)
  })
}
