import { authCookie } from './cookies.server'
import type { SessionUser } from './session.server'

const RECOVERY_WINDOW_SECONDS = 60 * 60

// A recovery link's session carries `amr: otp` like a magic link's: the callback marks it here.
const recoveryCookie = () => authCookie('recovery_mark', RECOVERY_WINDOW_SECONDS, 'recovery-mark')

export function markRecovery(userId: string): Promise<string> {
  return recoveryCookie().serialize({ userId, at: Math.floor(Date.now() / 1000) })
}

export function clearRecoveryMark(): Promise<string> {
  return recoveryCookie().serialize('', { maxAge: 0 })
}

export async function isRecoveryRequest(request: Request, user: SessionUser): Promise<boolean> {
  const now = Date.now() / 1000
  if (user.recoveredAt !== undefined && now - user.recoveredAt <= RECOVERY_WINDOW_SECONDS)
    return true
  const mark: unknown = await recoveryCookie().parse(request.headers.get('Cookie'))
  if (typeof mark !== 'object' || mark === null) return false
  const { userId, at } = mark as { userId?: unknown; at?: unknown }
  return userId === user.id && typeof at === 'number' && now - at <= RECOVERY_WINDOW_SECONDS
}
