import { afterEach, beforeEach, vi } from 'vitest'

import { logger } from '~/lib/server/logger.server'
import { MemoryRateLimitStore, setRateLimitStore } from '~/lib/server/rate-limit.server'

import { type ContactDelivery, setContactDeliveryForTests } from './delivery.server'

/** A contact message that passes every rule. */
export const VALID_CONTACT = {
  firstName: 'Ada',
  lastName: 'Lovelace',
  email: 'ada@example.com',
  company: 'Analytical Engines',
  message: 'I would like to hear more about the Pro plan.',
}

/** Per test: a fresh rate-limit store, a quiet log and the delivered messages (returned). */
export function captureContactDeliveries() {
  let delivered: unknown[] = []
  let previous: ContactDelivery
  beforeEach(() => {
    delivered = []
    previous = setContactDeliveryForTests({
      async deliver(message) {
        delivered.push(message)
      },
    })
    setRateLimitStore(new MemoryRateLimitStore())
    vi.spyOn(logger, 'info').mockImplementation(() => {})
  })
  afterEach(() => {
    setContactDeliveryForTests(previous)
    vi.restoreAllMocks()
  })
  return () => delivered
}
