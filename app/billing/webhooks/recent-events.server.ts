import { ExpiringCache } from '~/lib/server/expiring-cache'

/**
 * Handled events (ledger row committed), so a repeated delivery is answered 200 without a
 * database round trip; restart the app after a database restore (docs/operations.md).
 */
export class RecentEvents extends ExpiringCache<true> {
  constructor(
    maxEntries = 10_000,
    private readonly maxAgeMs = 60 * 60 * 1000,
    private readonly clock = () => Date.now(),
  ) {
    super(maxEntries, clock)
  }

  has(key: string) {
    return this.get(key) !== undefined
  }

  add(key: string) {
    this.set(key, true, this.clock() + this.maxAgeMs)
  }
}

/** Keyed `<provider>:<event id>`. */
export const recentEvents = new RecentEvents()
