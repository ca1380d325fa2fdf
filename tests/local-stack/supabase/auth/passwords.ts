import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
) => Promise<Buffer>
const KEY_LENGTH = 32

/** Hashes a password with scrypt (GoTrue uses bcrypt; the format differs, the idea does not). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await scryptAsync(password, salt, KEY_LENGTH)
  return `$scrypt$${salt.toString('base64')}$${key.toString('base64')}`
}

/** Checks a password against a stored hash; false for a missing or foreign-format hash. */
export async function verifyPassword(
  password: string,
  stored: string | null | undefined,
): Promise<boolean> {
  const parts = (stored ?? '').split('$')
  if (parts.length !== 4 || parts[1] !== 'scrypt') return false
  const expected = Buffer.from(parts[3], 'base64')
  const key = await scryptAsync(password, Buffer.from(parts[2], 'base64'), expected.length)
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** GoTrue's default password rule: at least 6 characters. */
export function isWeakPassword(password: string) {
  return password.length < 6
}
