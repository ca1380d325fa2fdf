import { jsonNoStore, methodNotAllowed } from '~/lib/server/http.server'

import {
  confirmedByAuthServer,
  getOptionalUser,
  SIGN_IN_UNAVAILABLE_MESSAGE,
  type SignedInSession,
} from './session.server'

/** The 405 for any method but POST, else null (the request policy refuses cross-site posts). */
export function refuseApiPost(request: Request): Response | null {
  return request.method === 'POST' ? null : methodNotAllowed('POST')
}

/**
 * The signed-in user, or the 401 `{error}` (503 when it cannot be checked). With `confirm` (the
 * billing portals hand over control) the auth server confirms the session too.
 */
export async function requireApiUser(
  request: Request,
  options: { message?: string; confirm?: boolean } = {},
): Promise<SignedInSession | Response> {
  try {
    const session = await getOptionalUser(request)
    // The shared result itself, not a copy: its client is made only if a route needs one.
    const signedIn = session as SignedInSession
    if (
      session.user &&
      session.asUser &&
      (!options.confirm || (await confirmedByAuthServer(signedIn)))
    ) {
      return signedIn
    }
    const error = options.message ?? 'Unauthorized'
    return jsonNoStore({ error }, { status: 401, headers: session.headers })
  } catch (thrown) {
    if (!(thrown instanceof Response) || thrown.status !== 503) throw thrown
    return jsonNoStore(
      { error: SIGN_IN_UNAVAILABLE_MESSAGE },
      { status: 503, headers: { 'Retry-After': thrown.headers.get('Retry-After') ?? '5' } },
    )
  }
}
