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

  take(method: string, path: string): Fault | undefined {
    const taken = this.registry.take(method, path)
    return taken && { ...taken.fault, count: taken.remaining }
  }
}
