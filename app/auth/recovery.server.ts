import { authCookie } from './cookies.server'
import type { SessionUser } from './session.server'

/** How long after following the link a recovery session may set a new password. */
const RECOVERY_WINDOW_SECONDS = 60 * 60

/**
 * The mark of a session opened by a password-recovery link. A session from an emailed
 * token hash carries `amr: otp` (as a magic link's does), so `/auth/callback` marks the
 * browser it signed in through a recovery link with this signed, HttpOnly cookie, naming the
 * user and valid for RECOVERY_WINDOW_SECONDS. Signed with a key derived from the service-role
 * secret: nobody without it can make one.
 */
const recoveryCookie = () =>
  authCookie('recovery_mark', '/', RECOVERY_WINDOW_SECONDS, 'recovery-mark')

/** The Set-Cookie that marks this browser's session as opened by `userId`'s recovery link. */
export function markRecovery(userId: string): Promise<string> {
  return recoveryCookie().serialize({ userId, at: Math.floor(Date.now() / 1000) })
}

/** The Set-Cookie that removes the mark (once the new password is saved). */
export function clearRecoveryMark(): Promise<string> {
  return recoveryCookie().serialize('', { maxAge: 0 })
}

/**
 * True when this session may set a password without the current one: opened by a recovery
 * link within the window, known from the token's `amr` (PKCE recovery) or from the mark.
 */
export async function isRecoveryRequest(request: Request, user: SessionUser): Promise<boolean> {
  const now = Date.now() / 1000
  if (user.recoveredAt !== undefined && now - user.recoveredAt <= RECOVERY_WINDOW_SECONDS)
    return true
  const mark: unknown = await recoveryCookie().parse(request.headers.get('Cookie'))
  if (typeof mark !== 'object' || mark === null) return false
  const { userId, at } = mark as { userId?: unknown; at?: unknown }
  return userId === user.id && typeof at === 'number' && now - at <= RECOVERY_WINDOW_SECONDS
}
