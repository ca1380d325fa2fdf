import type { Fault } from './types'

interface ActiveFault extends Fault {
  matcher: (path: string) => boolean
}

/** Fault injection for the API: the next `count` matching calls fail with `status` and/or wait `delayMs`. */
export class FaultInjector {
  private faults: ActiveFault[] = []

  add(fault: Fault) {
    const matcher = fault.path.startsWith('^')
      ? (path: string) => new RegExp(fault.path).test(path)
      : (path: string) => path.startsWith(fault.path)
    this.faults.push({ ...fault, method: fault.method?.toUpperCase(), matcher })
  }

  clear() {
    this.faults = []
  }

  list(): Fault[] {
    return this.faults.map(({ matcher: _matcher, ...fault }) => fault)
  }

  /** Takes one use of the first fault matching this call, if any. */
  take(method: string, path: string): Fault | undefined {
    const fault = this.faults.find((f) => (!f.method || f.method === method) && f.matcher(path))
    if (!fault) return undefined
    fault.count -= 1
    if (fault.count <= 0) this.faults = this.faults.filter((f) => f !== fault)
    return fault
  }
}
