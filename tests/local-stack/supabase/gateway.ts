import { json } from './http'
import { LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY } from './keys'

/**
 * The gateway's API key check (Kong key-auth): `apikey` header or query parameter, one of
 * the project's keys (`accepted`; the published local keys unless the emulator was given
 * its own).
 */
export function apiKeyProblem(
  request: Request,
  accepted: readonly string[] = [LOCAL_ANON_KEY, LOCAL_SERVICE_ROLE_KEY],
) {
  const key = request.headers.get('apikey') ?? new URL(request.url).searchParams.get('apikey')
  if (!key) {
    return json(
      {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      },
      { status: 401 },
    )
  }
  if (!accepted.includes(key)) {
    return json(
      {
        message: 'Invalid API key',
        hint: 'Double check your Supabase `anon` or `service_role` API key.',
      },
      { status: 401 },
    )
  }
  return undefined
}
