import { safeNextPath } from '~/auth/safe-next-path'

import { authCookie } from './cookies.server'

// A plan chosen before signing up, followed once by the browser that chose it: never kept with
// the account, where anyone's sign-up could have put it (docs/security.md).
const intentCookie = () => authCookie('after_sign_up', 60 * 60 * 24)

const CONTINUABLE = /^\/subscribe\/[a-z]+(\?provider=[a-z]+)?$/

export async function rememberAfterSignUp(next: string): Promise<string | null> {
  const path = safeNextPath(next, '')
  return CONTINUABLE.test(path) ? intentCookie().serialize(path) : null
}

export async function takeAfterSignUp(request: Request) {
  const next = safeNextPath(await intentCookie().parse(request.headers.get('Cookie')), '')
  if (!CONTINUABLE.test(next)) return null
  return { next, clear: await intentCookie().serialize('', { maxAge: 0 }) }
}
