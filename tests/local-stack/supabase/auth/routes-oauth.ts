import { createHash } from 'node:crypto'

import type { Queryable } from '../../database'
import { escapeHtml, html, redirect, type Route, route } from '../http'
import { layout } from '../pages'
import type { AuthContext } from './context'
import { errors } from './errors'
import { createFlowState, readCodeChallenge } from './pkce'
import { resolveRedirect } from './redirects'
import {
  addProvider,
  confirmEmail,
  createUser,
  findUserByEmail,
  findUserById,
  isValidEmail,
  normalizeEmail,
  upsertIdentity,
} from './users'

/** Providers the local consent page stands in for. */
const PROVIDERS: Record<string, { label: string; iss: string }> = {
  github: { label: 'GitHub', iss: 'https://api.github.com' },
  google: { label: 'Google', iss: 'https://accounts.google.com' },
}

interface FlowRow {
  id: string
  auth_code: string
  provider_type: string
  code_challenge: string | null
  redirect_to: string
  expired: boolean
}

async function loadFlow(ctx: AuthContext, id: string | null): Promise<FlowRow | undefined> {
  if (!id || !/^[0-9a-f-]{36}$/i.test(id)) return undefined
  const { rows } = await ctx.db.query<FlowRow>(
    `select *, created_at < now() - make_interval(secs => $2) as expired from auth.flow_state
     where id = $1 and authentication_method = 'oauth' and user_id is null`,
    [id, ctx.config.flowStateTtlSeconds],
  )
  return rows[0]
}

/** GET /authorize?provider=…: starts the flow and sends the browser to the local consent page. */
async function authorize(ctx: AuthContext, request: Request) {
  const query = new URL(request.url).searchParams
  const provider = query.get('provider') ?? ''
  if (!PROVIDERS[provider])
    throw errors.validation(`Unsupported provider: provider ${provider} could not be found`)
  // The product signs in with PKCE only; the implicit flow is not emulated (README).
  const challenge = readCodeChallenge(Object.fromEntries(query))
  if (!challenge) throw errors.validation('the local stand-in supports only the PKCE flow')
  const flow = await createFlowState(ctx.db, {
    challenge,
    providerType: provider,
    authenticationMethod: 'oauth',
    redirectTo: resolveRedirect(ctx.config, query.get('redirect_to')),
  })
  const consentUrl = `${ctx.config.url}/auth/v1/_consent?flow=${flow.id}`
  return redirect(consentUrl, 302)
}

function consentPage(flow: FlowRow, problem?: string, email = '') {
  const provider = PROVIDERS[flow.provider_type]
  return layout(
    `Sign in with ${provider.label}`,
    `<h1>Sign in with ${escapeHtml(provider.label)}</h1>
<p role="note"><strong>Local stand-in, not ${escapeHtml(provider.label)}.</strong> This page is part of the
development stack on this machine; nothing is sent to ${escapeHtml(provider.label)}, and no password is
asked. Authorizing signs you in to the app as the account with this email, creating it on
first use.</p>
<p>You will return to <code>${escapeHtml(flow.redirect_to)}</code>.</p>
<form method="post" action="/auth/v1/_consent">
  <input type="hidden" name="flow" value="${escapeHtml(flow.id)}">
  ${problem ? `<p role="alert" id="consent-error">${escapeHtml(problem)}</p>` : ''}
  <p><label for="email">Email</label><br>
  <input id="email" name="email" type="email" autocomplete="email" value="${escapeHtml(email)}"
    ${problem ? 'aria-invalid="true" aria-describedby="consent-error"' : ''}></p>
  <p><label for="name">Name (optional)</label><br><input id="name" name="name" type="text" autocomplete="name"></p>
  <p><button type="submit" name="decision" value="authorize">Authorize</button>
  <button type="submit" name="decision" value="cancel" formnovalidate>Cancel</button></p>
</form>`,
  )
}

function expiredPage() {
  return html(
    layout(
      'Sign-in expired',
      '<h1>Sign-in expired</h1><p>Start the sign-in from the app again.</p>',
    ),
    {
      status: 400,
    },
  )
}

/**
 * Finds or creates the user of a provider identity; an existing account with that email is
 * linked. Null where it would create one while sign-ups are off.
 */
async function signInWithIdentity(
  tx: Queryable,
  config: AuthContext['config'],
  { provider, email, name }: { provider: string; email: string; name: string },
) {
  const providerId = String(
    parseInt(createHash('sha256').update(email).digest('hex').slice(0, 10), 16),
  )
  const identityData = {
    iss: PROVIDERS[provider].iss,
    sub: providerId,
    provider_id: providerId,
    email,
    email_verified: true,
    phone_verified: false,
    name,
    full_name: name,
    user_name: email.split('@')[0],
    preferred_username: email.split('@')[0],
  }
  const { rows } = await tx.query<{ user_id: string }>(
    'select user_id from auth.identities where provider = $1 and provider_id = $2',
    [provider, providerId],
  )
  const existing = rows[0]
    ? await findUserById(tx, rows[0].user_id)
    : await findUserByEmail(tx, email)
  let userId = existing?.id
  if (!userId && config.disableSignup) return null
  if (existing && !existing.email_confirmed_at) {
    // GoTrue's RemoveUnconfirmedIdentities: whoever set up an unconfirmed account had not
    // proven the address, so its password, metadata and other identities go.
    await tx.query(
      `update auth.users set encrypted_password = null, raw_user_meta_data = '{}',
         raw_app_meta_data = raw_app_meta_data || '{"providers": []}', updated_at = now()
       where id = $1`,
      [existing.id],
    )
    await tx.query('delete from auth.identities where user_id = $1', [existing.id])
  }
  if (!userId) {
    const user = await createUser(tx, {
      email,
      emailConfirmed: true,
      provider,
      userMetadata: identityData,
    })
    userId = user.id
  }
  await upsertIdentity(tx, userId, provider, providerId, identityData)
  await addProvider(tx, userId, provider)
  await confirmEmail(tx, userId)
  await tx.query(
    `update auth.users set raw_user_meta_data = raw_user_meta_data || $2::jsonb, updated_at = now() where id = $1`,
    [userId, JSON.stringify(identityData)],
  )
  return userId
}

/**
 * POST /_consent: Authorize → redirect_to?code=…; Cancel, or a new
 * user while sign-ups are off → ?error=access_denied.
 */
async function decide(ctx: AuthContext, request: Request) {
  const form = new URLSearchParams(await request.text())
  const flow = await loadFlow(ctx, form.get('flow'))
  if (!flow || flow.expired) return expiredPage()
  const target = new URL(flow.redirect_to)
  const deny = async (code: string, description: string) => {
    await ctx.db.query('delete from auth.flow_state where id = $1', [flow.id])
    target.searchParams.set('error', 'access_denied')
    target.searchParams.set('error_code', code)
    target.searchParams.set('error_description', description)
    return redirect(target.toString(), 302)
  }
  if (form.get('decision') !== 'authorize')
    return deny('provider_denied', 'The user denied the authorization request')
  const email = normalizeEmail(form.get('email') ?? '')
  if (!isValidEmail(email))
    return html(consentPage(flow, 'Enter a valid email address.', email), { status: 400 })
  const name = (form.get('name') ?? '').trim() || email.split('@')[0]
  const identity = { provider: flow.provider_type, email, name }
  const signedIn = await ctx.db.transaction(async (tx) => {
    const userId = await signInWithIdentity(tx, ctx.config, identity)
    if (!userId) return false
    await tx.query(
      'update auth.flow_state set user_id = $2, auth_code_issued_at = now() where id = $1',
      [flow.id, userId],
    )
    return true
  })
  if (!signedIn) return deny('signup_disabled', 'Signups not allowed for this instance')
  target.searchParams.set('code', flow.auth_code)
  return redirect(target.toString(), 302)
}

export function oauthRoutes(ctx: AuthContext): Route[] {
  return [
    route('GET', '/authorize', (request) => authorize(ctx, request)),
    route('GET', '/_consent', async (request) => {
      const flow = await loadFlow(ctx, new URL(request.url).searchParams.get('flow'))
      return flow && !flow.expired ? html(consentPage(flow)) : expiredPage()
    }),
    route('POST', '/_consent', (request) => decide(ctx, request)),
  ]
}
