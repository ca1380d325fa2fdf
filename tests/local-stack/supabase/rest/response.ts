import { type RestError, singularityError } from './errors'
import type { Accept } from './request'

export interface Outcome {
  status: number
  /** JSON text, or null for no body. */
  body: string | null
  headers: Record<string, string>
}

/** One row of `wrapBody`: the JSON text and how many rows it holds. */
export interface BodyRow {
  body: string
  page_total: number
}

/** `0-9/42`, `*\/42` when empty, `*` for an unknown total (PostgREST's contentRangeH). */
export function contentRange(pageTotal: number, total: number | undefined) {
  const of = total === undefined ? '*' : String(total)
  return pageTotal > 0 ? `0-${pageTotal - 1}/${of}` : `*/${of}`
}

/** Status and headers of a read like PostgREST: 206 for a partial page. */
export function readOutcome(
  row: BodyRow,
  accept: Accept,
  total: number | undefined,
  applied: string[],
): Outcome {
  if (accept.singular && row.page_total !== 1) throw singularityError(row.page_total)
  const status = total !== undefined && row.page_total < total ? 206 : 200
  const headers: Record<string, string> = { 'Content-Range': contentRange(row.page_total, total) }
  if (applied.length) headers['Preference-Applied'] = applied.join(', ')
  return { status, body: row.body, headers }
}

function contentType(accept: Accept) {
  return accept.singular
    ? 'application/vnd.pgrst.object+json; charset=utf-8'
    : 'application/json; charset=utf-8'
}

/** Builds the Response; HEAD and 204 never carry a body. */
export function toResponse(method: string, accept: Accept, outcome: Outcome): Response {
  const headers = new Headers(outcome.headers)
  if (outcome.body !== null && outcome.status !== 204)
    headers.set('Content-Type', contentType(accept))
  const body = method === 'HEAD' || outcome.status === 204 ? null : outcome.body
  return new Response(body, { status: outcome.status, headers })
}

/** PostgREST's error response: `{code, details, hint, message}`. */
export function errorResponse(method: string, error: RestError): Response {
  const headers = new Headers(error.headers)
  headers.set('Content-Type', 'application/json; charset=utf-8')
  const body = method === 'HEAD' ? null : JSON.stringify(error.body)
  return new Response(body, { status: error.status, headers })
}
