import { getEnv } from '~/env.server'
import { rpc } from '~/lib/database/rpc.server'
import { wakeMailDelivery } from '~/notifications/delivery.server'

import type { ContactMessage } from './schema'

/** Where a validated contact message goes. Throwing means "not delivered" (answered 500). */
export interface ContactDelivery {
  deliver(message: ContactMessage): Promise<void>
}

// Stored, with the mails to the team and to the sender, in one transaction (docs/contact.md).
let delivery: ContactDelivery = {
  async deliver(message) {
    await rpc('store_contact_message', { p_message: message, p_team: getEnv().CONTACT_TO })
    wakeMailDelivery()
  },
}

export function deliverContactMessage(message: ContactMessage) {
  return delivery.deliver(message)
}

/** Test hook: swap the delivery (for example one that throws) and get the previous one back. */
export function setContactDeliveryForTests(next: ContactDelivery): ContactDelivery {
  const previous = delivery
  delivery = next
  return previous
}
