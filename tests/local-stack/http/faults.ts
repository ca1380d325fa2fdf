/** Fault injection: the next `count` requests matching a method and path fail and/or wait. */

export interface FaultTarget {
  method?: string
  /** A path prefix, or a regular expression when it starts with `^`. */
  path: string
}

export interface FaultEntry<F> {
  fault: F
  remaining: number
}

function faultPathMatcher(pattern: string) {
  if (!pattern.startsWith('^')) return (path: string) => path.startsWith(pattern)
  const regex = new RegExp(pattern)
  return (path: string) => regex.test(path)
}

export class FaultRegistry<F extends FaultTarget> {
  private entries: (FaultEntry<F> & { matches: (path: string) => boolean })[] = []

  add(fault: F, count: number) {
    const normalized = { ...fault, method: fault.method?.toUpperCase() }
    const matches = faultPathMatcher(fault.path)
    this.entries.push({ fault: normalized, remaining: count, matches })
  }

  clear() {
    this.entries = []
  }

  /** Uses up one use of the first fault that matches; it leaves the registry at zero. */
  take(method: string, path: string): FaultEntry<F> | undefined {
    const entry = this.entries.find(
      (candidate) =>
        candidate.remaining > 0 &&
        (!candidate.fault.method || candidate.fault.method === method) &&
        candidate.matches(path),
    )
    if (!entry) return undefined
    entry.remaining -= 1
    if (entry.remaining <= 0) this.entries = this.entries.filter((candidate) => candidate !== entry)
    return { fault: entry.fault, remaining: entry.remaining }
  }
}
