import { FaultRegistry } from '../http'
import type { Fault } from './types'

/** Fault injection for the API: the next `count` matching calls fail with `status` and/or wait `delayMs`. */
export class FaultInjector {
  private readonly registry = new FaultRegistry<Fault>()

  add(fault: Fault) {
    this.registry.add(fault, fault.count)
  }

  clear() {
    this.registry.clear()
  }

  /** The faults still armed; `count` is the number of uses left. */
  list(): Fault[] {
    return this.registry.list().map(({ fault, remaining }) => ({ ...fault, count: remaining }))
  }

  /** Takes one use of the first fault matching this call, if any. */
  take(method: string, path: string): Fault | undefined {
    const taken = this.registry.take(method, path)
    return taken && { ...taken.fault, count: taken.remaining }
  }
}
