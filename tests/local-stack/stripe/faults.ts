import { z } from 'zod'

import { FaultRegistry } from '../http'

export const faultSchema = z.object({
  method: z
    .string()
    .transform((value) => value.toUpperCase())
    .optional(),
  path: z.string().min(1),
  status: z.number().int().min(100).max(599).optional(),
  count: z.number().int().min(1).default(1),
  delayMs: z.number().int().min(0).max(600_000).optional(),
  body: z.unknown().optional(),
})

export type FaultInput = z.input<typeof faultSchema>

/** A matched fault: wait `delayMs`, then answer `status`/`body` (or continue when no status). */
interface FaultAction {
  delayMs: number
  status?: number
  body?: unknown
}

export class FaultInjector {
  private readonly registry = new FaultRegistry<z.output<typeof faultSchema>>()

  add(input: FaultInput) {
    const fault = faultSchema.parse(input)
    if (fault.status === undefined && fault.delayMs === undefined) {
      throw new Error('A fault needs a status, a delayMs, or both.')
    }
    this.registry.add(fault, fault.count)
    return fault
  }

  clear() {
    this.registry.clear()
  }

  take(method: string, path: string): FaultAction | undefined {
    const fault = this.registry.take(method, path)?.fault
    if (!fault) return undefined
    return {
      delayMs: fault.delayMs ?? 0,
      status: fault.status,
      body: fault.body ?? (fault.status ? defaultErrorBody(fault.status) : undefined),
    }
  }
}

/** The error body Stripe sends for a status, so the SDK raises the matching error class. */
function defaultErrorBody(status: number) {
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
