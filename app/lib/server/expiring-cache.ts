/** Capacity 0 (nothing kept) for a cache named in CACHES_OFF, a diagnosis switch (.env.example). */
export const cacheSize = (name: string, size: number) =>
  process.env.CACHES_OFF?.split(',').includes(name) ? 0 : size

/** Expires entries at the caller's `now`; past `maxEntries` the oldest go first (Map order). */
export class ExpiringCache<Value> {
  private readonly entries = new Map<string, { value: Value; until: number }>()

  constructor(
    private readonly maxEntries: number,
    protected readonly now: () => number = () => Date.now(),
  ) {}

  get(key: string): Value | undefined {
    const entry = this.entries.get(key)
    if (!entry) return undefined
    if (entry.until <= this.now()) {
      this.entries.delete(key)
      return undefined
    }
    return entry.value
  }

  set(key: string, value: Value, until: number) {
    this.entries.delete(key)
    if (until <= this.now()) return
    this.entries.set(key, { value, until })
    while (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string)
    }
  }

  delete(key: string) {
    this.entries.delete(key)
  }

  clear() {
    this.entries.clear()
  }

  get size() {
    return this.entries.size
  }
}
