import { parseError, restError } from './errors'
import {
  type Condition,
  type OrderTerm,
  parseColumn,
  parseColumnList,
  parseFilter,
  parseOrder,
  parseSelect,
  type SelectItem,
} from './grammar'

/** What the query string asks for (select list, filters, order, limit, write options). */
export interface QueryPlan {
  select: SelectItem[]
  where: Condition[]
  order: OrderTerm[]
  limit?: number
  columns?: string[]
  onConflict?: string[]
}

/** The Prefer header, as PostgREST reads it (what the product sends). */
export interface Preferences {
  return: 'minimal' | 'representation'
  count: boolean
  mergeDuplicates: boolean
  applied: string[] // echoed in Preference-Applied
}

export interface Accept {
  singular: boolean
}

/** Parses the query string; `skip` holds names that are not filters (RPC arguments). */
export function parseQuery(
  params: URLSearchParams,
  skip: ReadonlySet<string> = new Set(),
): QueryPlan {
  const plan: QueryPlan = { select: parseSelect(params.get('select')), where: [], order: [] }
  for (const [key, value] of params) {
    if (key === 'select' || skip.has(key)) continue
    if (key === 'order') plan.order.push(...parseOrder(value))
    else if (key === 'limit') {
      if (!/^\d+$/.test(value))
        throw parseError(`"failed to parse limit parameter (${value})"`, 'Expected an integer')
      plan.limit = Number(value)
    } else if (key === 'columns') plan.columns = parseColumnList(value, 'columns')
    else if (key === 'on_conflict') plan.onConflict = parseColumnList(value, 'on_conflict')
    else if (/^(not\.)?(and|or)$|\.|^offset$/.test(key)) {
      throw parseError(
        `"failed to parse (${key})"`,
        'Logic trees, offsets and filters on embedded resources are not supported by the local PostgREST stand-in',
      )
    } else plan.where.push(parseFilter(parseColumn(key), value))
  }
  return plan
}

/** `Prefer`: unknown preferences are ignored, known ones the stand-in lacks refused. */
export function parsePrefer(header: string | null): Preferences {
  const preferences: Preferences = {
    return: 'minimal',
    count: false,
    mergeDuplicates: false,
    applied: [],
  }
  for (const token of (header ?? '').split(',')) {
    const preference = token.replace(/\s/g, '')
    if (preference === 'return=minimal' || preference === 'return=representation')
      preferences.return = preference === 'return=minimal' ? 'minimal' : 'representation'
    else if (preference === 'count=exact') preferences.count = true
    else if (preference === 'resolution=merge-duplicates') preferences.mergeDuplicates = true
    else if (
      /^(return|count|resolution|missing|handling|max-affected|tx|timezone)=/.test(preference)
    )
      throw parseError(
        `"Prefer: ${preference}"`,
        'This preference is not supported by the local PostgREST stand-in',
      )
    else continue
    preferences.applied.push(preference)
  }
  return preferences
}

const SUPPORTED_ACCEPT =
  /^(\*\/\*|application\/\*|application\/json|application\/vnd\.pgrst\.(object|array)\+json)$/

/** Parses Accept: whether one object is asked for; anything but JSON is PostgREST's 406. */
export function parseAccept(header: string | null): Accept {
  if (header === null || header.trim() === '') return { singular: false }
  for (const range of header.split(',')) {
    const type = range.split(';')[0].trim().toLowerCase()
    if (SUPPORTED_ACCEPT.test(type)) return { singular: type.endsWith('object+json') }
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
