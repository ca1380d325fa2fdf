import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'
import * as z from 'zod/mini'

import * as account from '~/account/schemas'
import * as auth from '~/auth/schemas'
import { contactSchema } from '~/contact/schema'
import { VALID_CONTACT } from '~/contact/test-support'
import { NotificationPreferencesSchema } from '~/notifications/schemas'
import { AVATAR_MAX_BYTES } from '~/profile/limits'
import * as profile from '~/profile/schemas'

import { parseWithSchema } from './form-schema'
import { getSchemaConstraint } from './schema-constraint'

function form(entries: Record<string, string | File>) {
  const data = new FormData()
  for (const [key, value] of Object.entries(entries)) data.append(key, value)
  return data
}

/** What the form sees of a submission: status, value and errors, without `reply`. */
function outcome(submission: object) {
  const { status, value, error, payload } = submission as Record<string, unknown>
  return { status, value, error, payload }
}

const image = (size: number, type = 'image/png') =>
  new File([new Uint8Array(size)], 'a.png', { type })
const noFile = () => new File([], '', { type: 'application/octet-stream' })

const valid = {
  contact: VALID_CONTACT,
  password: { currentPassword: 'old-password', password: 'new-password-1' },
}

/** Every form schema with valid, invalid, empty and odd submissions. */
const cases: [string, z.core.$ZodType, Record<string, string | File>][] = [
  ['sign-in', auth.SignInSchema, { email: ' Ada@Example.COM ', password: 'x', redirectTo: '/a' }],
  ['sign-in', auth.SignInSchema, { email: 'ada@', password: '' }],
  ['sign-in', auth.SignInSchema, { email: `${'a'.repeat(250)}@example.com`, password: 'x' }],
  ['sign-in', auth.SignInSchema, {}],
  ['magic link', auth.MagicLinkSchema, { email: '  ', intent: 'magic-link', website: '' }],
  ['sign-up', auth.SignUpSchema, { email: 'ada@example.com', password: 'short' }],
  ['sign-up', auth.SignUpSchema, { email: 'ada@example.com', password: 'x'.repeat(73) }],
  ['sign-up', auth.SignUpSchema, { email: 'ada@example.com', password: 'long-enough' }],
  ['forgot password', auth.ForgotPasswordSchema, { email: 'not-an-email' }],
  ['reset password', auth.ResetPasswordSchema, { password: 'long-enough', confirmPassword: 'x' }],
  ['reset password', auth.ResetPasswordSchema, { password: '', confirmPassword: '' }],
  [
    'reset password',
    auth.ResetPasswordSchema,
    { password: 'a'.repeat(8), confirmPassword: 'a'.repeat(8) },
  ],
  ['change email', account.ChangeEmailSchema, { email: '' }],
  ['change password', account.ChangePasswordSchema, { ...valid.password, confirmPassword: 'x' }],
  [
    'change password',
    account.ChangePasswordSchema,
    {
      currentPassword: 'same-password',
      password: 'same-password',
      confirmPassword: 'same-password',
    },
  ],
  ['change password', account.ChangePasswordSchema, { currentPassword: '', password: 'short' }],
  ['delete account', account.DeleteAccountSchema, { confirm: ' DELETE ' }],
  ['delete account', account.DeleteAccountSchema, { confirm: 'delete' }],
  ['delete account', account.DeleteAccountSchema, { confirm: '' }],
  ['display name', profile.DisplayNameSchema, { displayName: '  Ada  ' }],
  ['display name', profile.DisplayNameSchema, { displayName: '   ' }],
  ['display name', profile.DisplayNameSchema, { displayName: 'x'.repeat(81) }],
  ['avatar', profile.AvatarSchema, { avatar: image(10) }],
  ['avatar', profile.AvatarSchema, { avatar: image(AVATAR_MAX_BYTES + 1) }],
  ['avatar', profile.AvatarSchema, { avatar: image(10, 'image/svg+xml') }],
  ['avatar', profile.AvatarSchema, { avatar: noFile() }],
  ['avatar', profile.AvatarSchema, {}],
  ['contact', contactSchema, valid.contact],
  ['contact', contactSchema, { ...valid.contact, firstName: '  A  ', email: ' ada@example ' }],
  ['contact', contactSchema, { firstName: '', company: 'x'.repeat(201), website: 'bot' }],
  ['notifications', NotificationPreferencesSchema, { billing: 'on' }],
  ['notifications', NotificationPreferencesSchema, {}],
]

describe('parseWithSchema (the browser) answers like parseWithZod (the action)', () => {
  it.each(cases)('%s: %j', (_, schema, entries) => {
    const browser = outcome(parseWithSchema(form(entries), { schema }))
    const server = outcome(parseWithZod(form(entries), { schema }))
    expect(browser).toEqual(server)
  })

  it('covers valid and invalid submissions', () => {
    const statuses = cases.map(
      ([, schema, entries]) => parseWithSchema(form(entries), { schema }).status,
    )
    expect(statuses).toContain('success')
    expect(statuses).toContain('error')
  })

  it('names errors like conform: form errors under "", nested fields with dots', () => {
    const schema = z
      .object({ a: z.object({ b: z.string('b is required') }) })
      .check(z.refine(() => false, 'the whole form'))
    const submission = parseWithSchema(form({ 'a.c': 'x' }), { schema })
    expect(submission.status === 'error' && submission.error).toEqual({ 'a.b': ['b is required'] })
    const formError = parseWithSchema(form({ 'a.b': 'x' }), { schema })
    expect(formError.status === 'error' && formError.error).toEqual({ '': ['the whole form'] })
  })

  it('validates one field on blur (conform’s validate intent) without a submit status', () => {
    const data = form({ email: 'ada@' })
    data.append('__intent__', JSON.stringify({ type: 'validate', payload: { name: 'email' } }))
    const submission = parseWithSchema(data, { schema: auth.ForgotPasswordSchema })
    expect(submission.status).toBeUndefined()
    expect('error' in submission && submission.error).toEqual({
      email: ['Enter a valid email address, like name@example.com'],
    })
  })
})

describe('getSchemaConstraint', () => {
  it('reads required, minimum and maximum lengths through pipes and optionals', () => {
    expect(
      getSchemaConstraint(
        z.object({
          email: auth.emailField(),
          password: auth.newPasswordField(),
          note: z.optional(z.string().check(z.maxLength(10))),
          code: z.string().check(z.length(6)),
          avatar: z.instanceof(File),
        }),
      ),
    ).toEqual({
      email: { required: true, maxLength: 254 },
      password: { required: true, minLength: 8, maxLength: 72 },
      note: { required: false, maxLength: 10 },
      code: { required: true, minLength: 6, maxLength: 6 },
      avatar: { required: true },
    })
  })
})
