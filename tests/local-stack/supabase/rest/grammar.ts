import { parseError } from './errors'

/** PostgREST's query-string grammar: fields, select lists, filters, logic trees, order. */

export interface JsonStep {
  arrow: '->' | '->>'
  key: string | number
}
export interface Field {
  column: string
  path: JsonStep[]
}
export type SelectItem =
  { kind: 'star' } | { kind: 'field'; field: Field; alias?: string; cast?: string }
export type Condition =
  | {
      kind: 'filter'
      field: Field
      negate: boolean
      op: string
      quantifier?: 'any' | 'all'
      config?: string
      value: string | string[]
    }
  | { kind: 'logic'; op: 'and' | 'or'; negate: boolean; children: Condition[] }
export interface OrderTerm {
  field: Field
  direction?: 'asc' | 'desc'
  nulls?: 'first' | 'last'
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/
const OPERATORS = new Set(
  'eq neq gt gte lt lte like ilike match imatch in is isdistinct cs cd ov sl sr nxr nxl adj fts plfts phfts wfts'.split(
    ' ',
  ),
)
const QUANTIFIABLE = new Set('eq neq gt gte lt lte like ilike match imatch'.split(' '))
const FTS = new Set(['fts', 'plfts', 'phfts', 'wfts'])

/** True when name is a plain identifier we are willing to quote into SQL. */
export function isIdentifier(name: string) {
  return IDENTIFIER.test(name)
}

/** `col`, `col->key`, `col->>0`, … */
export function parseField(text: string): Field {
  const [column, ...rest] = text.split(/(?=->)/)
  if (!isIdentifier(column))
    throw parseError(`"failed to parse field (${text})"`, `Invalid column name`)
  const path = rest.map((segment): JsonStep => {
    const match = /^(->>?)([A-Za-z0-9_]+)$/.exec(segment)
    if (!match) throw parseError(`"failed to parse json path (${text})"`, `Invalid json path`)
    const key = /^\d+$/.test(match[2]) ? Number(match[2]) : match[2]
    return { arrow: match[1] as JsonStep['arrow'], key }
  })
  return { column, path }
}

/** Splits on commas outside parentheses, braces and double quotes. */
export function splitTopLevel(text: string): string[] {
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
    else if (!quoted && (char === '(' || char === '{')) depth++
    else if (!quoted && (char === ')' || char === '}')) depth--
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
export function unquote(value: string) {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value
  return value.slice(1, -1).replace(/\\(.)/g, '$1')
}

/** `select=*,id,alias:col::text,meta->>plan` */
export function parseSelect(text: string | null): SelectItem[] {
  if (text === null || text.trim() === '') return [{ kind: 'star' }]
  return splitTopLevel(text).map((raw): SelectItem => {
    const item = raw.trim()
    if (item === '*') return { kind: 'star' }
    if (item.includes('(') || item.startsWith('...')) {
      throw parseError(
        `"failed to parse select parameter (${text})"`,
        'Embedded resources, spreads and aggregates are not supported by the local PostgREST emulator',
      )
    }
    const match = /^(?:([A-Za-z_][A-Za-z0-9_]*):)?([^:]+)(?:::([A-Za-z_][A-Za-z0-9_]*))?$/.exec(
      item,
    )
    if (!match)
      throw parseError(`"failed to parse select parameter (${text})"`, `Unexpected "${item}"`)
    return { kind: 'field', alias: match[1], field: parseField(match[2]), cast: match[3] }
  })
}

/** `[not.]op[(any|all)|(config)].value` for one column. */
export function parseFilter(field: Field, raw: string, inLogicTree = false): Condition {
  let rest = raw
  let negate = false
  if (rest.startsWith('not.')) {
    negate = true
    rest = rest.slice(4)
  }
  const match = /^([a-z]+)(?:\(([A-Za-z_]+)\))?\.([\s\S]*)$/.exec(rest)
  if (!match || !OPERATORS.has(match[1]))
    throw parseError(`"failed to parse filter (${raw})"`, 'Unknown operator')
  const [, op, modifier, value] = match
  const condition = { kind: 'filter' as const, field, negate, op }
  if (op === 'in') return { ...condition, value: parseInList(value, raw) }
  if (op === 'is') {
    const keyword = value.toLowerCase()
    if (!['null', 'not_null', 'true', 'false', 'unknown'].includes(keyword)) {
      throw parseError(
        `"failed to parse filter (${raw})"`,
        'is accepts null, not_null, true, false or unknown',
      )
    }
    return { ...condition, value: keyword }
  }
  const plain = inLogicTree ? unquote(value) : value
  if (modifier === 'any' || modifier === 'all') {
    if (!QUANTIFIABLE.has(op) || !/^\{.*\}$/s.test(value)) {
      throw parseError(`"failed to parse filter (${raw})"`, `Invalid ${modifier} modifier`)
    }
    return { ...condition, quantifier: modifier, value }
  }
  if (modifier !== undefined) {
    if (!FTS.has(op)) throw parseError(`"failed to parse filter (${raw})"`, 'Unexpected modifier')
    return { ...condition, config: modifier, value: plain }
  }
  return { ...condition, value: plain }
}

/** `(a,"b,c",d)` → ['a', 'b,c', 'd'] */
function parseInList(value: string, raw: string): string[] {
  if (!value.startsWith('(') || !value.endsWith(')')) {
    throw parseError(`"failed to parse filter (${raw})"`, 'in expects a parenthesised list')
  }
  const inner = value.slice(1, -1)
  if (inner.trim() === '') return []
  return splitTopLevel(inner).map((item) => unquote(item.trim()))
}

/** `or=(a.eq.1,and(b.gt.2,c.is.null))` — text is the parenthesised part. */
export function parseLogic(op: 'and' | 'or', negate: boolean, text: string): Condition {
  if (!text.startsWith('(') || !text.endsWith(')') || text.length < 3) {
    throw parseError(
      `"failed to parse logic tree (${text})"`,
      'Expected a parenthesised list of conditions',
    )
  }
  const children = splitTopLevel(text.slice(1, -1)).map((raw): Condition => {
    const item = raw.trim()
    const nested = /^(not\.)?(and|or)(\([\s\S]*\))$/.exec(item)
    if (nested) return parseLogic(nested[2] as 'and' | 'or', Boolean(nested[1]), nested[3])
    const dot = item.indexOf('.')
    if (dot < 1) throw parseError(`"failed to parse logic tree (${text})"`, `Unexpected "${item}"`)
    return parseFilter(parseField(item.slice(0, dot)), item.slice(dot + 1), true)
  })
  return { kind: 'logic', op, negate, children }
}

/** `order=a.desc.nullslast,b` */
export function parseOrder(text: string): OrderTerm[] {
  return splitTopLevel(text).map((raw) => {
    const [fieldText, ...modifiers] = raw.trim().split('.')
    const term: OrderTerm = { field: parseField(fieldText) }
    for (const modifier of modifiers) {
      if (modifier === 'asc' || modifier === 'desc') term.direction = modifier
      else if (modifier === 'nullsfirst') term.nulls = 'first'
      else if (modifier === 'nullslast') term.nulls = 'last'
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
