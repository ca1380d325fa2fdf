import { apiKeyProblem } from '../gateway'
import { json, matchRoute, type Route, route } from '../http'
import { LOCAL_JWKS } from '../keys'
import type { AuthConfig, AuthContext } from './context'
import { AuthError, OAuthError, renderAuthError } from './errors'
import { adminRoutes } from './routes-admin'
import { oauthRoutes } from './routes-oauth'
import { signupRoutes } from './routes-signup'
import { tokenRoutes } from './routes-token'
import { userRoutes } from './routes-user'
import { verifyRoutes } from './routes-verify'
import { authenticate } from './sessions'

/** Paths a browser opens directly (no apikey), as Supabase's API gateway allows. */
const OPEN_PATHS = new Set([
  'GET /verify',
  'GET /authorize',
  'GET /_consent',
  'POST /_consent',
  'GET /health',
  'GET /.well-known/jwks.json',
])

function settings(config: AuthConfig) {
  return {
    external: { anonymous_users: false, email: true, phone: false, github: true, google: true },
    disable_signup: config.disableSignup,
    mailer_autoconfirm: false,
    phone_autoconfirm: false,
    sms_provider: '',
    saml_enabled: false,
  }
}

/** The emulated GoTrue: handles a request whose path is below /auth/v1. */
export function createAuthHandler(ctx: AuthContext) {
  const routes: Route[] = [
    route('GET', '/health', async () =>
      json({ version: 'local-emulator', name: 'GoTrue', description: 'Local GoTrue emulator' }),
    ),
    route('GET', '/settings', async () => json(settings(ctx.config))),
    // A project on the legacy JWT secret publishes no key (the secret is never shown).
    route('GET', '/.well-known/jwks.json', async () =>
      json(ctx.config.jwtSigning === 'legacy' ? { keys: [] } : LOCAL_JWKS),
    ),
    ...signupRoutes(ctx),
    ...tokenRoutes(ctx),
    ...verifyRoutes(ctx),
    ...userRoutes(ctx),
    ...adminRoutes(ctx),
    ...oauthRoutes(ctx),
  ]
  return async (request: Request, path: string, peer?: string): Promise<Response> => {
    const method = request.method === 'HEAD' ? 'GET' : request.method
    if (!OPEN_PATHS.has(`${method} ${path}`)) {
      const problem = apiKeyProblem(request, ctx.config.apiKeys)
      if (problem) return problem
    }
    const { handler, params, pathMatched } = matchRoute(routes, request.method, path)
    if (!handler) {
      const error = pathMatched
        ? new AuthError(405, 'method_not_allowed', 'Method not allowed')
        : new AuthError(404, 'not_found', 'Not found')
      return renderAuthError(request, error)
    }
    try {
      if (ctx.limits.limits(request, path)) {
        // PUT /user is limited after its authentication, as api.go mounts it.
        if (method === 'PUT' && path === '/user') await authenticate(ctx, request)
        ctx.limits.hit(request, path, peer)
      }
      return await handler(request, params)
    } catch (error) {
      if (error instanceof AuthError || error instanceof OAuthError)
        return renderAuthError(request, error)
      console.error('[supabase emulator] auth error', error)
      return renderAuthError(
        request,
        new AuthError(500, 'unexpected_failure', (error as Error).message),
      )
    }
  }
}
