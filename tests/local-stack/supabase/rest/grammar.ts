import { parseError } from './errors'

/** PostgREST's query-string grammar as far as the product's queries go; the rest is PGRST100. */

export type SelectItem = { kind: 'star' } | { kind: 'column'; column: string; alias?: string }
export interface Condition {
  column: string
  negate: boolean
  op: string
  value: string | string[]
}
export interface OrderTerm {
  column: string
  direction?: 'asc' | 'desc'
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
export const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
}
const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown']

/** True when name is a plain identifier we are willing to quote into SQL. */
export function isIdentifier(name: string) {
  return IDENTIFIER.test(name)
}

function unsupported(text: string, what: string) {
  return parseError(
    `"failed to parse (${text})"`,
    `${what} is not supported by the local PostgREST stand-in`,
  )
}

/** A column name; JSON paths (`col->key`) are refused. */
export function parseColumn(text: string) {
  if (text.includes('->')) throw unsupported(text, 'A JSON path')
  if (!isIdentifier(text))
    throw parseError(`"failed to parse field (${text})"`, 'Invalid column name')
  return text
}

/** Splits on commas outside parentheses and double quotes. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quoted = false
  let current = ''
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (quoted && char === '\\') {
      current += char + (text[++i] ?? '')
      continue
    }
    if (char === '"') quoted = !quoted
    else if (!quoted && char === '(') depth++
    else if (!quoted && char === ')') depth--
    if (char === ',' && depth === 0 && !quoted) {
      parts.push(current)
      current = ''
    } else current += char
  }
  if (quoted || depth !== 0)
    throw parseError(`"failed to parse (${text})"`, 'Unbalanced quotes or parentheses')
  parts.push(current)
  return parts
}

/** Removes PostgREST's double quotes (with backslash escapes) around a value. */
function unquote(value: string) {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value
  return value.slice(1, -1).replace(/\\(.)/g, '$1')
}

/** `select=*,id,alias:col` */
export function parseSelect(text: string | null): SelectItem[] {
  if (text === null || text.trim() === '') return [{ kind: 'star' }]
  return splitTopLevel(text).map((raw): SelectItem => {
    const item = raw.trim()
    if (item === '*') return { kind: 'star' }
    if (item.includes('(') || item.startsWith('...'))
      throw unsupported(text, 'Embedding, spreading or aggregating')
    if (item.includes('::')) throw unsupported(text, 'A cast')
    const match = /^(?:([A-Za-z_][A-Za-z0-9_]*):)?([^:]+)$/.exec(item)
    if (!match)
      throw parseError(`"failed to parse select parameter (${text})"`, `Unexpected "${item}"`)
    return { kind: 'column', alias: match[1], column: parseColumn(match[2]) }
  })
}

/** `[not.]op.value` for one column: the comparisons, `in.(…)` and `is.…`. */
export function parseFilter(column: string, raw: string): Condition {
  const negate = raw.startsWith('not.')
  const rest = negate ? raw.slice(4) : raw
  const match = /^([a-z]+)(\([A-Za-z_]+\))?\.([\s\S]*)$/.exec(rest)
  if (!match) throw parseError(`"failed to parse filter (${raw})"`, 'Unknown operator')
  const [, op, modifier, value] = match
  if (modifier !== undefined || !(op in OPERATORS || op === 'in' || op === 'is'))
    throw unsupported(raw, `The operator ${op}${modifier ?? ''}`)
  if (op === 'in') {
    if (!value.startsWith('(') || !value.endsWith(')'))
      throw parseError(`"failed to parse filter (${raw})"`, 'in expects a parenthesised list')
    const inner = value.slice(1, -1)
    const items = inner.trim() === '' ? [] : splitTopLevel(inner)
    return { column, negate, op, value: items.map((item) => unquote(item.trim())) }
  }
  if (op === 'is' && !IS_VALUES.includes(value.toLowerCase())) {
    throw parseError(
      `"failed to parse filter (${raw})"`,
      'is accepts null, not_null, true, false or unknown',
    )
  }
  return { column, negate, op, value: op === 'is' ? value.toLowerCase() : value }
}

/** `order=a.desc,b` */
export function parseOrder(text: string): OrderTerm[] {
  return splitTopLevel(text).map((raw) => {
    const [column, ...modifiers] = raw.trim().split('.')
    const term: OrderTerm = { column: parseColumn(column) }
    for (const modifier of modifiers) {
      if (modifier === 'asc' || modifier === 'desc') term.direction = modifier
      else if (modifier === 'nullsfirst' || modifier === 'nullslast')
        throw unsupported(text, 'Nulls placement')
      else throw parseError(`"failed to parse order (${text})"`, `Unexpected "${modifier}"`)
    }
    return term
  })
}

/** `"user_id","status"` or `a,b` → ['user_id', 'status'] (columns=, on_conflict=). */
export function parseColumnList(text: string, parameter: string): string[] {
  return splitTopLevel(text).map((raw) => {
    const name = unquote(raw.trim())
    if (!isIdentifier(name))
      throw parseError(`"failed to parse ${parameter} parameter (${text})"`, `Bad "${name}"`)
    return name
  })
}
