/** Fault injection for API calls: fail the next N matching requests, or make them hang. */
import { z } from 'zod'

export const faultSchema = z.object({
  method: z
    .string()
    .transform((value) => value.toUpperCase())
    .optional(),
  /** A path prefix such as `/v1/checkout/sessions`, or a regex written `^…` or `/…/`. */
  path: z.string().min(1),
  status: z.number().int().min(100).max(599).optional(),
  count: z.number().int().min(1).default(1),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  body: z.unknown().optional(),
})

export type FaultInput = z.input<typeof faultSchema>
export type Fault = z.output<typeof faultSchema> & { remaining: number }

/** A matched fault: wait `delayMs`, then answer `status`/`body` (or continue when no status). */
export interface FaultAction {
  delayMs: number
  status?: number
  body?: unknown
}

export class FaultInjector {
  private faults: Fault[] = []

  add(input: FaultInput) {
    const fault = faultSchema.parse(input)
    if (fault.status === undefined && fault.delayMs === undefined) {
      throw new Error('A fault needs a status, a delayMs, or both.')
    }
    this.faults.push({ ...fault, remaining: fault.count })
    return fault
  }

  clear() {
    this.faults = []
  }

  list(): Fault[] {
    return this.faults.map((fault) => ({ ...fault }))
  }

  /** Consumes one use of the first fault that matches this request. */
  take(method: string, path: string): FaultAction | undefined {
    const fault = this.faults.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (!candidate.method || candidate.method === method) &&
        pathMatches(candidate.path, path),
    )
    if (!fault) return undefined
    fault.remaining -= 1
    this.faults = this.faults.filter((candidate) => candidate.remaining > 0)
    return {
      delayMs: fault.delayMs ?? 0,
      status: fault.status,
      body: fault.body ?? (fault.status ? defaultErrorBody(fault.status) : undefined),
    }
  }
}

function pathMatches(pattern: string, path: string) {
  const slashed = /^\/(.+)\/([a-z]*)$/.exec(pattern)
  if (slashed && !pattern.startsWith('/v1')) return new RegExp(slashed[1], slashed[2]).test(path)
  if (pattern.startsWith('^')) return new RegExp(pattern).test(path)
  return path.startsWith(pattern)
}

/** The error body Stripe sends for a status, so the SDK raises the matching error class. */
export function defaultErrorBody(status: number) {
  if (status === 401) {
    return { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } }
  }
  if (status === 402) {
    return {
      error: { type: 'card_error', code: 'card_declined', message: 'Your card was declined.' },
    }
  }
  if (status === 409) {
    return {
      error: {
        type: 'invalid_request_error',
        code: 'lock_timeout',
        message:
          'This object cannot be accessed right now because another API request is using it.',
      },
    }
  }
  if (status === 429) {
    return {
      error: {
        type: 'invalid_request_error',
        code: 'rate_limit',
        message: 'Too many requests hit the API too quickly.',
      },
    }
  }
  if (status >= 500) {
    return {
      error: {
        type: 'api_error',
        message: 'An unknown error occurred (injected by the emulator).',
      },
    }
  }
  return { error: { type: 'invalid_request_error', message: `Injected error (${status}).` } }
}
