import { createCookie } from '@remix-run/node'
import { getEnv } from '~/env.server'
import { safeNextPath } from '~/auth/safe-next-path'

/**
 * Where a newcomer was going when they signed up (the checkout of the plan they chose on
 * the pricing page). The confirmation link must land on /dashboard (the auth callback's
 * rule for sign-up), so the way on is kept in a short-lived cookie in the browser that signed
 * up, and the dashboard follows it once. Opened in another browser, the link simply lands on
 * the dashboard.
 */
const intentCookie = createCookie('after_sign_up', {
  httpOnly: true,
  sameSite: 'lax',
  path: '/',
  maxAge: 60 * 60 * 24,
})

/** Paths a sign-up may continue to: a plan's checkout. */
const CONTINUABLE = /^\/subscribe\/[a-z]+(\?provider=(stripe|polar))?$/

/** The Set-Cookie that remembers `next` after a sign-up, or null when there is nothing to keep. */
export async function rememberAfterSignUp(next: string): Promise<string | null> {
  const path = safeNextPath(next, '')
  if (!CONTINUABLE.test(path)) return null
  return intentCookie.serialize(path, { secure: getEnv().NODE_ENV === 'production' })
}

/** The remembered path (and the Set-Cookie that forgets it), or null. */
export async function takeAfterSignUp(
  request: Request,
): Promise<{ next: string; clear: string } | null> {
  const value: unknown = await intentCookie.parse(request.headers.get('Cookie'))
  const path = safeNextPath(value, '')
  if (!CONTINUABLE.test(path)) return null
  return { next: path, clear: await intentCookie.serialize('', { maxAge: 0 }) }
}
