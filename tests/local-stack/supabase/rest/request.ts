import { parseError, restError } from './errors'
import {
  type Condition,
  type OrderTerm,
  parseColumnList,
  parseField,
  parseFilter,
  parseLogic,
  parseOrder,
  parseSelect,
  type SelectItem,
} from './grammar'

/** What the query string asks for (select list, filters, order, paging, write options). */
export interface QueryPlan {
  select: SelectItem[]
  where: Condition[]
  order: OrderTerm[]
  offset: number
  limit?: number
  columns?: string[]
  onConflict?: string[]
}

/** The Prefer header, as PostgREST reads it. */
export interface Preferences {
  return: 'minimal' | 'representation' | 'headers-only'
  count: boolean
  resolution?: 'merge-duplicates' | 'ignore-duplicates'
  missingDefault: boolean
  maxAffected?: number
  /** Values to echo in Preference-Applied. */
  applied: string[]
}

/** The response shape the Accept header asks for. */
export interface Accept {
  singular: boolean
  stripNulls: boolean
}

function nonNegativeInteger(value: string, name: string) {
  if (!/^\d+$/.test(value))
    throw parseError(`"failed to parse ${name} parameter (${value})"`, 'Expected an integer')
  return Number(value)
}

/** Parses the query string; `skip` holds names that are not filters (RPC arguments). */
export function parseQuery(
  params: URLSearchParams,
  skip: ReadonlySet<string> = new Set(),
): QueryPlan {
  const plan: QueryPlan = {
    select: parseSelect(params.get('select')),
    where: [],
    order: [],
    offset: 0,
  }
  for (const [key, value] of params) {
    if (key === 'select' || skip.has(key)) continue
    if (key === 'order') plan.order.push(...parseOrder(value))
    else if (key === 'limit') plan.limit = nonNegativeInteger(value, 'limit')
    else if (key === 'offset') plan.offset = nonNegativeInteger(value, 'offset')
    else if (key === 'columns') plan.columns = parseColumnList(value, 'columns')
    else if (key === 'on_conflict') plan.onConflict = parseColumnList(value, 'on_conflict')
    else if (/^(not\.)?(and|or)$/.test(key)) {
      plan.where.push(parseLogic(key.endsWith('and') ? 'and' : 'or', key.startsWith('not.'), value))
    } else if (key.includes('.')) {
      throw parseError(
        `"failed to parse filter (${key})"`,
        'Filters on embedded resources are not supported by the local PostgREST emulator',
      )
    } else plan.where.push(parseFilter(parseField(key), value))
  }
  return plan
}

/** Narrows the plan's offset/limit by a `Range: 0-9` header (intersection, like PostgREST). */
export function applyRangeHeader(plan: QueryPlan, header: string | null) {
  if (header === null) return
  const match = /^(?:items=)?(\d+)-(\d*)$/.exec(header.trim())
  if (!match) return
  const from = Number(match[1])
  const to = match[2] === '' ? undefined : Number(match[2])
  if (to !== undefined && to < from) {
    throw restError(
      416,
      'PGRST103',
      'Requested range not satisfiable',
      'The lower boundary must be lower than or equal to the upper boundary',
    )
  }
  const start = Math.max(from, plan.offset)
  const ends = [to, plan.limit === undefined ? undefined : plan.offset + plan.limit - 1]
  const end = Math.min(...ends.filter((value): value is number => value !== undefined))
  plan.offset = start
  if (Number.isFinite(end)) plan.limit = Math.max(0, end - start + 1)
}

/** Parses `Prefer: a=b, c=d` (several headers are joined with commas by Headers). */
export function parsePrefer(header: string | null): Preferences {
  const preferences: Preferences = {
    return: 'minimal',
    count: false,
    missingDefault: false,
    applied: [],
  }
  for (const token of (header ?? '').split(',')) {
    const [key, value = ''] = token
      .trim()
      .split('=')
      .map((part) => part.trim())
    if (
      key === 'return' &&
      (value === 'minimal' || value === 'representation' || value === 'headers-only')
    ) {
      preferences.return = value
      preferences.applied.push(`return=${value}`)
    } else if (key === 'count' && ['exact', 'planned', 'estimated'].includes(value)) {
      preferences.count = true
      preferences.applied.push(`count=${value}`)
    } else if (
      key === 'resolution' &&
      (value === 'merge-duplicates' || value === 'ignore-duplicates')
    ) {
      preferences.resolution = value
      preferences.applied.push(`resolution=${value}`)
    } else if (key === 'missing' && value === 'default') {
      preferences.missingDefault = true
      preferences.applied.push('missing=default')
    } else if (key === 'max-affected' && /^\d+$/.test(value)) {
      preferences.maxAffected = Number(value)
      preferences.applied.push(`max-affected=${value}`)
    } else if (key === 'handling' && value === 'strict') {
      preferences.applied.push('handling=strict')
    }
  }
  if (!preferences.applied.includes('handling=strict')) {
    preferences.maxAffected = undefined
    preferences.applied = preferences.applied.filter((value) => !value.startsWith('max-affected='))
  }
  return preferences
}

const SUPPORTED_ACCEPT =
  /^(\*\/\*|application\/\*|application\/json|application\/vnd\.pgrst\.(object|array)\+json)$/

/** Parses Accept; anything but JSON (array or object) is PostgREST's 406. */
export function parseAccept(header: string | null): Accept {
  if (header === null || header.trim() === '') return { singular: false, stripNulls: false }
  for (const range of header.split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase())
    if (!SUPPORTED_ACCEPT.test(type)) continue
    return {
      singular: type === 'application/vnd.pgrst.object+json',
      stripNulls:
        type.startsWith('application/vnd.pgrst.') && parameters.includes('nulls=stripped'),
    }
  }
  throw restError(406, 'PGRST107', `None of these media types are available: ${header}`)
}

/** Only the public schema is exposed (Accept-Profile / Content-Profile). */
export function checkProfile(headers: Headers, method: string) {
  const name = ['GET', 'HEAD'].includes(method) ? 'accept-profile' : 'content-profile'
  const profile = headers.get(name)
  if (profile === null || profile === 'public') return
  throw restError(
    406,
    'PGRST106',
    `Invalid schema: ${profile}`,
    null,
    'Only the following schemas are exposed: public',
  )
}
