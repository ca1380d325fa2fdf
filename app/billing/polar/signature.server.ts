import { createHmac, timingSafeEqual } from 'node:crypto'
import { webhooks } from '@polar-sh/sdk/2026-10'

/**
 * Polar's `webhooks.validateEvent` (SDK 1.0, `@polar-sh/sdk/2026-10`) with Node's HMAC: the
 * SDK verifies the Standard Webhooks signature through WebCrypto, importing the keys and
 * awaiting `subtle.verify` on every delivery, which cost more app CPU than the rest of the
 * Polar write's own code (docs/performance.md, "Where the time goes"). Same answers, same
 * errors (the SDK's classes and messages), in the same order, synchronously; a differential
 * test holds the two equal (`signature.server.test.ts`):
 * - a secret, then the three headers (`webhook-id`, `webhook-timestamp`,
 *   `webhook-signature`; empty counts as missing), then a finite timestamp within 300 s of
 *   now either way;
 * - the signed content is `${id}.${floor(timestamp)}.${body}`, HMAC-SHA256 with the secret's
 *   UTF-8 bytes, or with its base64 decoding (after an optional `whsec_`) when that differs;
 * - the header is a space-separated list of `<version>,<base64>`: only `v1` entries count,
 *   each decoded as `atob` does (anything else is skipped), and any one match is enough;
 * - then the body is parsed: not JSON is a `PolarWebhookError`, a type the SDK does not know
 *   (or none) a `PolarWebhookUnknownTypeError`.
 */
const TOLERANCE_SECONDS = 300

/**
 * The event types the SDK accepts. Typed as a record over the SDK's own payload union, so
 * the compiler refuses a missing or an extra type when the SDK changes.
 */
const KNOWN_TYPES: Record<webhooks.WebhookPayload['type'], true> = {
  'benefit.created': true,
  'benefit.updated': true,
  'benefit_grant.created': true,
  'benefit_grant.cycled': true,
  'benefit_grant.revoked': true,
  'benefit_grant.updated': true,
  'checkout.created': true,
  'checkout.expired': true,
  'checkout.updated': true,
  'customer.created': true,
  'customer.deleted': true,
  'customer.state_changed': true,
  'customer.updated': true,
  'customer_seat.assigned': true,
  'customer_seat.claimed': true,
  'customer_seat.revoked': true,
  'discount.created': true,
  'discount.deleted': true,
  'discount.updated': true,
  'member.created': true,
  'member.deleted': true,
  'member.updated': true,
  'order.created': true,
  'order.paid': true,
  'order.refunded': true,
  'order.updated': true,
  'organization.updated': true,
  'product.created': true,
  'product.updated': true,
  'refund.created': true,
  'refund.updated': true,
  'subscription.active': true,
  'subscription.canceled': true,
  'subscription.created': true,
  'subscription.cycled': true,
  'subscription.migrated': true,
  'subscription.past_due': true,
  'subscription.paused': true,
  'subscription.resumed': true,
  'subscription.revoked': true,
  'subscription.uncanceled': true,
  'subscription.updated': true,
}

interface HeaderSource {
  get(name: string): string | null
}

/** The signed payload, parsed, as the SDK returns it. Throws the SDK's errors. */
export function validatePolarEvent(body: string, headers: HeaderSource, secret: string): unknown {
  verifySignature(body, headers, secret)
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch (error) {
    throw new webhooks.PolarWebhookError('Failed to parse webhook payload', { cause: error })
  }
  const type =
    typeof parsed === 'object' &&
    parsed !== null &&
    'type' in parsed &&
    typeof parsed.type === 'string'
      ? parsed.type
      : null
  if (type === null || !Object.hasOwn(KNOWN_TYPES, type))
    throw new webhooks.PolarWebhookUnknownTypeError(type)
  return parsed
}

function verifySignature(body: string, headers: HeaderSource, secret: string) {
  const fail = (message: string) => new webhooks.PolarWebhookVerificationError(message)
  if (secret.length === 0) throw fail("Secret can't be empty")
  const id = headers.get('webhook-id')
  const timestampHeader = headers.get('webhook-timestamp')
  const signatures = headers.get('webhook-signature')
  if (!id || !timestampHeader || !signatures) throw fail('Missing required headers')
  const timestamp = Number(timestampHeader)
  if (!Number.isFinite(timestamp)) throw fail('Invalid signature headers')
  const now = Date.now() / 1000
  if (timestamp < now - TOLERANCE_SECONDS) throw fail('Message timestamp too old')
  if (timestamp > now + TOLERANCE_SECONDS) throw fail('Message timestamp too new')

  const content = `${id}.${Math.floor(timestamp)}.${body}`
  // Each key's MAC is computed once, and only when a v1 entry decodes.
  const macs: (Buffer | undefined)[] = []
  const keys = signingKeys(secret)
  for (const entry of signatures.split(' ')) {
    const [version, signature] = entry.split(',', 2)
    if (version !== 'v1' || signature === undefined) continue
    const decoded = decodeBase64(signature)
    if (decoded === null) continue
    for (let index = 0; index < keys.length; index++) {
      const mac = (macs[index] ??= createHmac('sha256', keys[index]).update(content).digest())
      if (decoded.length === mac.length && timingSafeEqual(decoded, mac)) return
    }
  }
  throw fail('No matching signature found')
}

let cachedKeys: { secret: string; keys: Buffer[] } | undefined

/** The secret's UTF-8 bytes and, when it is base64 (after `whsec_`) of something else, that. */
function signingKeys(secret: string): Buffer[] {
  if (cachedKeys?.secret === secret) return cachedKeys.keys
  const utf8 = Buffer.from(secret, 'utf8')
  const keys: Buffer[] = [utf8]
  const decoded = decodeBase64(secret.startsWith('whsec_') ? secret.slice(6) : secret)
  if (decoded !== null && decoded.length > 0 && !decoded.equals(utf8)) keys.push(decoded)
  cachedKeys = { secret, keys }
  return keys
}

/** Base64 as `atob` reads it (the SDK's rule: whitespace ignored, padding optional), or null. */
function decodeBase64(value: string): Buffer | null {
  try {
    return Buffer.from(atob(value), 'latin1')
  } catch {
    return null
  }
}
