import { ExpiringCache } from '~/lib/server/expiring-cache'

/**
 * Events this process has finished handling, so that a repeated delivery (a provider retry
 * after a timeout, a resend, a replay after an outage) is answered 200 at once instead of
 * costing a database round trip to find it in the ledger. Only a completed event is
 * remembered — its ledger row is committed, so the ledger would say "duplicate" too — and
 * a delivery that arrives while the first is still being applied goes to the ledger, which
 * decides. The ledger stays the source of truth: this is a per-process shortcut, bounded in
 * size and age, and it starts empty (restart the app after restoring the database to an
 * earlier point, so no instance remembers events the restored ledger has not seen).
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

/** The webhooks' shared memory of handled events, keyed `<provider>:<event id>`. */
export const recentEvents = new RecentEvents()
