import type { Condition, OrderTerm, SelectItem } from './grammar'
import { OPERATORS } from './grammar'
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

const column = (relation: string, name: string) => `${quote(relation)}.${quote(name)}`

/** The select list: `*` expands to the relation's columns. */
export function renderSelect(relation: string, items: SelectItem[]) {
  return items
    .map((item) =>
      item.kind === 'star'
        ? `${quote(relation)}.*`
        : `${column(relation, item.column)} as ${quote(item.alias ?? item.column)}`,
    )
    .join(', ')
}

const IS: Record<string, string> = {
  null: 'is null',
  not_null: 'is not null',
  true: 'is true',
  false: 'is false',
  unknown: 'is unknown',
}

function renderCondition(relation: string, condition: Condition, params: Params): string {
  const field = column(relation, condition.column)
  const { op, value } = condition
  let sql: string
  if (Array.isArray(value)) {
    sql =
      value.length === 0
        ? 'false'
        : `${field} in (${value.map((item) => params.add(item)).join(', ')})`
  } else if (op === 'is') sql = `${field} ${IS[value]}`
  else sql = `${field} ${OPERATORS[op]} ${params.add(value)}`
  return condition.negate ? `not (${sql})` : sql
}

export function renderWhere(relation: string, conditions: Condition[], params: Params) {
  if (conditions.length === 0) return ''
  return ` where ${conditions.map((condition) => renderCondition(relation, condition, params)).join(' and ')}`
}

function renderOrder(relation: string, terms: OrderTerm[]) {
  if (terms.length === 0) return ''
  const rendered = terms.map(
    (term) => `${column(relation, term.column)}${term.direction ? ` ${term.direction}` : ''}`,
  )
  return ` order by ${rendered.join(', ')}`
}

/** order/limit (the limit was validated by the parser, so it is inlined). */
export function renderPaging(relation: string, plan: QueryPlan) {
  const limit = plan.limit === undefined ? '' : ` limit ${plan.limit}`
  return `${renderOrder(relation, plan.order)}${limit}`
}

/**
 * Wraps a row source into one row `{ body, page_total }`: the JSON array (or single object)
 * built by Postgres itself, so types come out exactly as PostgREST's json_agg gives them.
 */
export function wrapBody(source: string, accept: Accept, value = 'pgrst_t') {
  const body = accept.singular
    ? `coalesce((json_agg(${value})->0)::text, 'null')`
    : `coalesce(json_agg(${value}), '[]')::text`
  return `select ${body} as body, count(*)::int as page_total from (${source}) pgrst_t`
}
