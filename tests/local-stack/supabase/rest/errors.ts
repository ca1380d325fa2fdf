/** PostgREST's error body: always these four keys, in this order. */
export interface ErrorBody {
  code: string
  details: string | null
  hint: string | null
  message: string
}

/** An error that becomes a PostgREST-shaped response; throwing it in a transaction rolls back. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.message)
  }
}

export function restError(
  status: number,
  code: string,
  message: string,
  details: string | null = null,
  hint: string | null = null,
  headers: Record<string, string> = {},
) {
  return new RestError(status, { code, details, hint, message }, headers)
}

/** PGRST100: the query string could not be parsed. */
export function parseError(message: string, details: string) {
  return restError(400, 'PGRST100', message, details)
}

/** PGRST116: a singular response (object Accept) needs exactly one row. */
export function singularityError(rows: number) {
  return restError(
    406,
    'PGRST116',
    'Cannot coerce the result to a single JSON object',
    `The result contains ${rows} rows`,
  )
}

/** HTTP status PostgREST gives a SQLSTATE (docs/errors.rst "HTTP Status Codes"). */
export function statusForSqlState(code: string, authenticated: boolean): number {
  // `raise … using errcode = 'PT402'` picks the HTTP status itself.
  if (/^PT[1-5]\d\d$/.test(code)) return Number(code.slice(2))
  const exact: Record<string, number> = {
    '23503': 409,
    '23505': 409,
    '25006': 405,
    P0001: 400,
    '42883': 404,
    '42P01': 404,
    '42501': authenticated ? 403 : 401,
  }
  if (code in exact) return exact[code]
  if (/^(08|53)/.test(code)) return 503
  if (/^(0L|0P|28)/.test(code)) return 403
  if (code.startsWith('54')) return 413
  return /^(09|25|2D|38|39|3B|40|55|57|58|F0|HV|P0|XX)/.test(code) ? 500 : 400
}

interface DatabaseErrorLike {
  code: string
  message: string
  detail?: string
  hint?: string
}

function isDatabaseError(error: unknown): error is DatabaseErrorLike {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as Record<string, unknown>
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof message === 'string'
}

/** A failed connection (not a query error): PostgREST answers 503 `PGRST001` and reconnects. */
function isConnectionError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, message } = error as { code?: unknown; message?: unknown }
  if (typeof code === 'string' && (/^(08|57P0)/.test(code) || /^E[A-Z]+$/.test(code))) return true
  return (
    typeof message === 'string' &&
    /Connection terminated|ECONNREFUSED|ECONNRESET|connect ETIMEDOUT|Client has encountered a connection error|timeout exceeded when trying to connect|the database system is (starting up|shutting down)/i.test(
      message,
    )
  )
}

/** Turns anything thrown while serving a request into a RestError; never throws. */
export function toRestError(error: unknown, authenticated: boolean): RestError {
  if (error instanceof RestError) return error
  if (isConnectionError(error)) {
    return restError(
      503,
      'PGRST001',
      'Database client error. Retrying the connection.',
      error instanceof Error ? error.message : String(error),
    )
  }
  if (isDatabaseError(error)) {
    return restError(
      statusForSqlState(error.code, authenticated),
      error.code,
      error.message,
      error.detail || null,
      error.hint || null,
    )
  }
  const message = error instanceof Error ? error.message : String(error)
  return restError(500, 'PGRSTX00', message || 'Internal server error')
}
