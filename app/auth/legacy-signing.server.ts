import { logger } from '~/lib/server/logger.server'

import { signingKeys } from './signing-keys.server'

/**
 * At start: warns when the project signs sessions with the legacy JWT secret (HS256). Its JWKS
 * then holds no asymmetric key, so sessions cannot be verified here and every signed-in page
 * asks Supabase Auth (`GET /auth/v1/user`): an auth outage shows 503 on those pages.
 */
export async function warnOfLegacyJwtSecret() {
  const jwks = await signingKeys.current()
  if (jwks && !jwks.keys.some((key) => key.kty !== 'oct'))
    logger.warn(
      'Supabase signs sessions with the legacy JWT secret (no asymmetric key in its JWKS), so every signed-in page asks Supabase Auth: move the project to asymmetric JWT signing keys (docs/going-live.md, "Supabase", step 3)',
    )
}
