import { json } from './http'
import {
  LOCAL_ANON_KEY,
  LOCAL_PUBLISHABLE_KEY,
  LOCAL_SECRET_KEY,
  LOCAL_SERVICE_ROLE_KEY,
} from './keys'

/** The four kinds of API key a project has: the legacy JWTs and the new opaque keys. */
export type ApiKeyKind = 'anon' | 'service_role' | 'publishable' | 'secret'

export interface ProjectKeys {
  anon: string
  serviceRole: string
  publishable: string
  secret: string
}

/** The published keys (keys.ts): the project's unless it was given its own. */
export const LOCAL_PROJECT_KEYS: ProjectKeys = {
  anon: LOCAL_ANON_KEY,
  serviceRole: LOCAL_SERVICE_ROLE_KEY,
  publishable: LOCAL_PUBLISHABLE_KEY,
  secret: LOCAL_SECRET_KEY,
}

function keyKinds(keys: ProjectKeys) {
  return new Map<string, ApiKeyKind>([
    [keys.anon, 'anon'],
    [keys.serviceRole, 'service_role'],
    [keys.publishable, 'publishable'],
    [keys.secret, 'secret'],
  ])
}

/** A browser, as Supabase's gateway tells one: by its User-Agent (every browser's starts so). */
const BROWSER_USER_AGENT = /\bMozilla\//

function requestApiKey(request: Request) {
  return request.headers.get('apikey') ?? new URL(request.url).searchParams.get('apikey')
}

/** The kind of the request's API key (`apikey` header or query parameter), if it is one. */
export function apiKeyKind(
  request: Request,
  keys: ProjectKeys = LOCAL_PROJECT_KEYS,
): ApiKeyKind | undefined {
  const key = requestApiKey(request)
  return key ? keyKinds(keys).get(key) : undefined
}

/** The gateway's API key check (Kong key-auth): the `apikey` header or query parameter. */
export function apiKeyProblem(request: Request, keys: ProjectKeys = LOCAL_PROJECT_KEYS) {
  const key = requestApiKey(request)
  if (!key) {
    return json(
      {
        message: 'No API key found in request',
        hint: 'No `apikey` request header or url param was found.',
      },
      { status: 401 },
    )
  }
  if (!keyKinds(keys).has(key)) {
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

/**
 * What Supabase's gateway does with the new keys (guides/api/api-keys, README.md "Keys and
 * gateway"): the request to hand on, a JWT of the key's role in place of the key, or its 401.
 */
export function passGateway(
  request: Request,
  keys: ProjectKeys = LOCAL_PROJECT_KEYS,
): Request | Response {
  const kind = apiKeyKind(request, keys)
  const forwarded = request.headers.has('sb-forwarded-for')
  if (kind !== 'publishable' && kind !== 'secret') {
    if (!forwarded) return request
    const headers = new Headers(request.headers)
    headers.delete('sb-forwarded-for')
    return new Request(request, { headers })
  }
  if (kind === 'secret' && BROWSER_USER_AGENT.test(request.headers.get('user-agent') ?? '')) {
    return json(
      {
        message: 'Forbidden use of secret API key in browser',
        hint: 'Secret API keys can only be used in a protected environment and should never be used in a browser.',
      },
      { status: 401 },
    )
  }
  const headers = new Headers(request.headers)
  if (kind !== 'secret') headers.delete('sb-forwarded-for')
  const authorization = request.headers.get('authorization')
  const bearer = authorization ? /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined
  if (authorization === null || bearer === requestApiKey(request)) {
    // Supabase's gateway mints a short-lived JWT of the key's role; the project's legacy
    // keys are exactly such JWTs.
    headers.set('authorization', `Bearer ${kind === 'secret' ? keys.serviceRole : keys.anon}`)
  } else if (bearer?.startsWith('sb_')) {
    return json(
      {
        message: 'Invalid authorization header',
        hint: 'A publishable or secret API key may only be sent in Authorization when it equals the apikey header.',
      },
      { status: 401 },
    )
  }
  return new Request(request, { headers })
}
