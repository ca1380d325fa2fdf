const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Anything but a UUID means "no user" instead of failing the database's uuid cast, which would
 * answer 500 and have the provider retry forever.
 */
export function asUserId(value: unknown): string | null {
  return typeof value === 'string' && UUID.test(value.trim()) ? value.trim().toLowerCase() : null
}
