import { logger } from '~/lib/server/logger.server'

import type { ContactMessage } from './schema'

/** Where a validated contact message goes. Throwing means "not delivered" (answered 500). */
export interface ContactDelivery {
  deliver(message: ContactMessage): Promise<void>
}

// The spec's default: the message is only logged. To store or mail it, assign another
// ContactDelivery here; nothing else changes (docs/contact.md).
let delivery: ContactDelivery = {
  async deliver(message) {
    logger.info({ contact: message }, 'contact: new message')
  },
}

/** Hands a validated message to the delivery in use; a failure propagates. */
export function deliverContactMessage(message: ContactMessage) {
  return delivery.deliver(message)
}

/** Test hook: swap the delivery (for example one that throws) and get the previous one back. */
export function setContactDeliveryForTests(next: ContactDelivery): ContactDelivery {
  const previous = delivery
  delivery = next
  return previous
}
