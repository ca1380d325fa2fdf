import { parseError } from './errors'
import type { Condition, Field, OrderTerm, SelectItem } from './grammar'
import type { Accept, QueryPlan } from './request'

/** Collects bind parameters; every user-supplied value goes through here. */
export class Params {
  readonly values: unknown[] = []
  add(value: unknown) {
    this.values.push(value)
    return `$${this.values.length}`
  }
}

/** Quotes an identifier that was already checked against the strict identifier pattern. */
export function quote(name: string) {
  return `"${name}"`
}

/** `"rel"."col"->'key'->>0` (keys are validated to [A-Za-z0-9_]). */
export function renderField(relation: string, field: Field) {
  let sql = `${quote(relation)}.${quote(field.column)}`
  for (const step of field.path)
    sql += `${step.arrow}${typeof step.key === 'number' ? step.key : `'${step.key}'`}`
  return sql
}

function outputName(field: Field) {
  const last = field.path.at(-1)
  return last === undefined ? field.column : String(last.key)
}

/** The select list: `*` expands to the relation's columns. */
export function renderSelect(relation: string, items: SelectItem[]) {
  return items
    .map((item) => {
      if (item.kind === 'star') return `${quote(relation)}.*`
      const expression = renderField(relation, item.field)
      const cast = item.cast ? `::${item.cast}` : ''
      return `${expression}${cast} as ${quote(item.alias ?? outputName(item.field))}`
    })
    .join(', ')
}

const OPERATORS: Record<string, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'like',
  ilike: 'ilike',
  match: '~',
  imatch: '~*',
  isdistinct: 'is distinct from',
  cs: '@>',
  cd: '<@',
  ov: '&&',
  sl: '<<',
  sr: '>>',
  nxr: '&<',
  nxl: '&>',
  adj: '-|-',
}
const TS_QUERY: Record<string, string> = {
  fts: 'to_tsquery',
  plfts: 'plainto_tsquery',
  phfts: 'phraseto_tsquery',
  wfts: 'websearch_to_tsquery',
}
const IS: Record<string, string> = {
  null: 'is null',
  not_null: 'is not null',
  true: 'is true',
  false: 'is false',
  unknown: 'is unknown',
}

function renderCondition(relation: string, condition: Condition, params: Params): string {
  if (condition.kind === 'logic') {
    const joined = condition.children
      .map((child) => renderCondition(relation, child, params))
      .join(` ${condition.op} `)
    return condition.negate ? `not (${joined})` : `(${joined})`
  }
  const field = renderField(relation, condition.field)
  const { op, value } = condition
  const pattern = (text: string) =>
    op === 'like' || op === 'ilike' ? text.replace(/\*/g, '%') : text
  let sql: string
  if (Array.isArray(value)) {
    sql =
      value.length === 0
        ? 'false'
        : `${field} in (${value.map((item) => params.add(item)).join(', ')})`
  } else if (op === 'is') {
    sql = `${field} ${IS[value]}`
  } else if (op in TS_QUERY) {
    const config = condition.config ? `${params.add(condition.config)}::regconfig, ` : ''
    sql = `${field} @@ ${TS_QUERY[op]}(${config}${params.add(value)})`
  } else if (condition.quantifier) {
    sql = `${field} ${OPERATORS[op]} ${condition.quantifier}(${params.add(pattern(value))})`
  } else {
    sql = `${field} ${OPERATORS[op]} ${params.add(pattern(value))}`
  }
  return condition.negate ? `not (${sql})` : sql
}

/** ` where …` for the filters, or '' when there are none. */
export function renderWhere(relation: string, conditions: Condition[], params: Params) {
  if (conditions.length === 0) return ''
  return ` where ${conditions.map((condition) => renderCondition(relation, condition, params)).join(' and ')}`
}

function renderOrder(relation: string, terms: OrderTerm[]) {
  if (terms.length === 0) return ''
  const rendered = terms.map((term) => {
    const direction = term.direction ? ` ${term.direction}` : ''
    const nulls = term.nulls ? ` nulls ${term.nulls}` : ''
    return `${renderField(relation, term.field)}${direction}${nulls}`
  })
  return ` order by ${rendered.join(', ')}`
}

/** order/limit/offset (integers were validated by the parser, so they are inlined). */
export function renderPaging(relation: string, plan: QueryPlan) {
  const limit = plan.limit === undefined ? '' : ` limit ${plan.limit}`
  const offset = plan.offset > 0 ? ` offset ${plan.offset}` : ''
  return `${renderOrder(relation, plan.order)}${limit}${offset}`
}

/**
 * Wraps a row source into one row `{ body, page_total }`: the JSON array (or single object)
 * built by Postgres itself, so types come out exactly as PostgREST's json_agg gives them.
 */
export function wrapBody(source: string, accept: Accept, value = 'pgrst_t') {
  const row = accept.stripNulls ? `json_strip_nulls(to_json(${value}))` : value
  const body = accept.singular
    ? `coalesce((json_agg(${row})->0)::text, 'null')`
    : `coalesce(json_agg(${row}), '[]')::text`
  return `select ${body} as body, count(*)::int as page_total from (${source}) pgrst_t`
}

/** Rejects write options that only make sense with a limit on reads. */
export function assertNoPaging(plan: QueryPlan) {
  if (plan.limit !== undefined || plan.offset > 0) {
    throw parseError(
      '"limit and offset on writes"',
      'limit/offset on writes are not supported by the local PostgREST emulator',
    )
  }
}
