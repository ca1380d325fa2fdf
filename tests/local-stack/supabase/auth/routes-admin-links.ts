import { json, objectField, readJsonObject, stringField } from '../http'
import type { AuthContext } from './context'
import { prepareEmailToken, startEmailChange } from './emails'
import { AuthError, authError, errors } from './errors'
import { isWeakPassword } from './passwords'
import { requireEmail } from './routes-signup'
import { createUser, findUserByEmail, reloadUserJson } from './users'

const LINK_TYPES = [
  'signup',
  'invite',
  'magiclink',
  'recovery',
  'email_change_current',
  'email_change_new',
]

/** POST /admin/generate_link: the token and links of an email, without sending it. */
export async function generateLink(ctx: AuthContext, request: Request) {
  const body = await readJsonObject(request)
  let type = stringField(body, 'type') ?? ''
  if (!LINK_TYPES.includes(type))
    throw errors.validation('Invalid email action link type requested')
  const email = requireEmail(body, 'Unable to validate email address: invalid format')
  const redirectTo =
    new URL(request.url).searchParams.get('redirect_to') ?? stringField(body, 'redirect_to')
  const data = objectField(body, 'data')
  const result = await ctx.db.transaction(async (tx) => {
    let user = await findUserByEmail(tx, email)
    if (!user && type === 'magiclink') type = 'signup'
    if (!user && type !== 'signup' && type !== 'invite') {
      throw new AuthError(404, 'user_not_found', 'User with this email not found')
    }
    if (user?.email_confirmed_at && (type === 'signup' || type === 'invite'))
      throw authError('email_exists')
    if (!user) {
      const password = stringField(body, 'password')
      if (type === 'signup' && (!password || isWeakPassword(password))) throw errors.weakPassword()
      user = await createUser(tx, {
        email,
        password,
        emailConfirmed: false,
        userMetadata: data,
        invited: type === 'invite',
      })
    }
    if (type === 'email_change_current' || type === 'email_change_new') {
      const newEmail = requireEmail({ email: body.new_email }, 'The new email address is required')
      if (await findUserByEmail(tx, newEmail)) throw authError('email_exists')
      const issued = await startEmailChange(ctx, tx, { user, newEmail, redirectTo, send: false })
      const wanted = issued.find(
        (t) =>
          t.type ===
          (type === 'email_change_new' ? 'email_change_token_new' : 'email_change_token_current'),
      )
      if (!wanted)
        throw errors.validation('Enable secure email change to generate link for current email')
      return {
        user: user.id,
        otp: wanted.otp,
        tokenHash: wanted.tokenHash,
        verifyUrl: wanted.verifyUrl,
        kind: 'email_change',
      }
    }
    const kind = type as 'signup' | 'invite' | 'magiclink' | 'recovery'
    const prepared = await prepareEmailToken(ctx, tx, { user, kind, redirectTo })
    return {
      user: user.id,
      otp: prepared.otp,
      tokenHash: prepared.tokenHash,
      verifyUrl: prepared.verifyUrl,
      kind,
    }
  })
  const verify = new URL(result.verifyUrl)
  return json({
    ...(await reloadUserJson(ctx.db, result.user)),
    action_link: result.verifyUrl,
    email_otp: result.otp,
    hashed_token: result.tokenHash,
    redirect_to: verify.searchParams.get('redirect_to'),
    verification_type: result.kind,
  })
}
