import { invalid, randomId } from './http'
import { API_VERSION } from './objects'
import type { Store, StripeEvent } from './store'
import type { WebhookDispatcher } from './webhooks'

/** The API request that caused an event (null for hosted pages and the emulator's own clock). */
export interface EventRequest {
  id: string | null
  idempotency_key: string | null
}

export const NO_REQUEST: EventRequest = { id: null, idempotency_key: null }

export function snapshot<T>(value: T): T {
  return structuredClone(value)
}

export class EventBus {
  constructor(
    private readonly store: Store,
    readonly dispatcher: WebhookDispatcher,
  ) {}

  emit(
    type: string,
    object: object,
    request: EventRequest = NO_REQUEST,
    previous?: Record<string, unknown>,
  ): StripeEvent {
    const event: StripeEvent = {
      id: randomId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: this.store.now(),
      data: {
        object: snapshot(object) as Record<string, unknown>,
        ...(previous ? { previous_attributes: snapshot(previous) } : {}),
      },
      livemode: false,
      pending_webhooks: this.dispatcher.endpointCount,
      request: { ...request },
      type,
    }
    this.store.events.set(event.id, event)
    this.dispatcher.enqueue(event)
    return event
  }

  resend(eventId: string) {
    const event = this.store.event(eventId)
    if (!this.dispatcher.endpoint) throw invalid('No webhook endpoint is configured.')
    if (!this.dispatcher.enqueue(event)) {
      throw invalid(`The webhook endpoint ${this.dispatcher.endpoint.id} is disabled.`)
    }
  }
}

/** Stripe's `previous_attributes`: plain objects diffed key by key (null for added keys). */
export function previousAttributes(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const changed: Record<string, unknown> = {}
  const keys = new Set([...Object.keys(before), ...Object.keys(after)])
  for (const key of keys) {
    const old = before[key]
    const now = after[key]
    if (JSON.stringify(old) === JSON.stringify(now)) continue
    if (isPlainObject(old) && isPlainObject(now)) {
      changed[key] = previousAttributes(old, now)
    } else {
      changed[key] = old === undefined ? null : old
    }
  }
  return changed
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !('object' in value)
  )
}
