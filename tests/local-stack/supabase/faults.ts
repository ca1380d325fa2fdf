import { setTimeout as sleep } from 'node:timers/promises'

import { FaultRegistry } from '../http'
import { AuthError, renderAuthError } from './auth/errors'
import { json } from './http'

/** The next `count` requests matching `method` and `path` wait `delayMs`, then answer `status`. */
export interface SupabaseFault {
  method?: string
  /** A path prefix, or a regular expression when it starts with `^`. */
  path: string
  count: number
  status?: number
  delayMs?: number
  /** For Auth: the error code; default `over_request_rate_limit` for 429, else `unexpected_failure`. */
  code?: string
  message?: string
}

export class SupabaseFaults {
  private readonly registry = new FaultRegistry<SupabaseFault>()

  add(fault: SupabaseFault) {
    this.registry.add(fault, fault.count)
  }

  clear() {
    this.registry.clear()
  }

  /**
   * Applies the first fault matching the request, if any: waits, then returns the error
   * answer in the service's shape (GoTrue's for Auth, PostgREST's otherwise), or undefined
   * to answer normally.
   */
  async apply(request: Request, path: string): Promise<Response | undefined> {
    const taken = this.registry.take(request.method, path)
    if (!taken) return undefined
    const { fault } = taken
    if (fault.delayMs) await sleep(fault.delayMs)
    if (!fault.status) return undefined
    if (path.startsWith('/auth/v1')) {
      const code =
        fault.code ?? (fault.status === 429 ? 'over_request_rate_limit' : 'unexpected_failure')
      const message =
        fault.message ?? (fault.status === 429 ? 'Request rate limit reached' : 'Injected fault')
      return renderAuthError(request, new AuthError(fault.status, code, message))
    }
    return json(
      {
        code: fault.code ?? 'PGRST000',
        details: null,
        hint: null,
        message: fault.message ?? 'Injected fault',
      },
      { status: fault.status },
    )
  }
}
