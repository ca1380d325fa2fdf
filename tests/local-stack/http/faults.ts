/**
 * Fault injection: the next `count` requests matching a method and path fail with a status
 * and/or wait. Each emulator validates faults and renders them in its provider's shape; this
 * registry matches and counts them.
 */

export interface FaultTarget {
  /** Upper-case method; any method when omitted. */
  method?: string
  /** A path prefix, or a regular expression when it starts with `^`. */
  path: string
}

export interface FaultEntry<F> {
  fault: F
  /** Uses left. */
  remaining: number
}

export interface FaultRegistryOptions {
  /** Also read `/…/flags` as a regular expression (unless it starts with `prefixOnly`). */
  slashedRegex?: { prefixOnly: string }
}

/** `^…` is a regular expression, `/…/flags` too when enabled, anything else a path prefix. */
export function faultPathMatcher(pattern: string, options: FaultRegistryOptions = {}) {
  const slashed = options.slashedRegex ? /^\/(.+)\/([a-z]*)$/.exec(pattern) : null
  if (slashed && !pattern.startsWith(options.slashedRegex!.prefixOnly)) {
    const regex = new RegExp(slashed[1], slashed[2])
    return (path: string) => regex.test(path)
  }
  if (pattern.startsWith('^')) {
    const regex = new RegExp(pattern)
    return (path: string) => regex.test(path)
  }
  return (path: string) => path.startsWith(pattern)
}

export class FaultRegistry<F extends FaultTarget> {
  private entries: (FaultEntry<F> & { matches: (path: string) => boolean })[] = []

  constructor(private readonly options: FaultRegistryOptions = {}) {}

  add(fault: F, count: number) {
    const normalized = { ...fault, method: fault.method?.toUpperCase() }
    const matches = faultPathMatcher(fault.path, this.options)
    this.entries.push({ fault: normalized, remaining: count, matches })
  }

  clear() {
    this.entries = []
  }

  list(): FaultEntry<F>[] {
    return this.entries.map(({ fault, remaining }) => ({ fault: { ...fault }, remaining }))
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
