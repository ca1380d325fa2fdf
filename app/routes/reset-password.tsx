import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData } from '@remix-run/react'
import { updatePassword } from '~/auth/auth.server'
import { PASSWORD_MIN_LENGTH, resetPasswordConstraint } from '~/auth/constraints'
import { ResetPasswordSchema } from '~/auth/schemas'
import { clearRecoveryMark, isRecoveryRequest } from '~/auth/recovery.server'
import { requireConfirmedUser, requireUser } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { refuseCrossSite } from '~/lib/cross-site.server'
import { useFormValidation, REVALIDATE_ON, VALIDATE_ON } from '~/lib/form-validation'
import { readFormData } from '~/lib/http.server'

const RECOVERY_ONLY =
  'Choosing a password without your current one needs the link from a password-reset email. Ask for a new link, or change your password in Account settings.'

// Reached from the recovery email through /auth/callback, which signs the user in first.
// Only that recovery session may set a password here; any other session is sent to ask for
// a link (a stolen or shared session must not be able to take the account over).
export async function loader({ request }: LoaderFunctionArgs) {
  const { user, headers } = await requireUser(request)
  if (!(await isRecoveryRequest(request, user)))
    throw redirect('/forgot-password?notice=recovery-link-needed', { headers })
  return data(null, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  refuseCrossSite(request)
  const session = await requireConfirmedUser(request)
  const formData = await readFormData(request, { headers: session.headers })
  if (!(await isRecoveryRequest(request, session.user))) {
    return data(
      { result: null, formError: RECOVERY_ONLY },
      { status: 403, headers: session.headers },
    )
  }
  const submission = parseWithZod(formData, { schema: ResetPasswordSchema })
  if (submission.status !== 'success') {
    return data(
      {
        result: submission.reply({ hideFields: ['password', 'confirmPassword'] }),
        formError: null,
      },
      { status: 400, headers: session.headers },
    )
  }
  const result = await updatePassword(session, submission.value.password)
  if (result.error) {
    const fieldErrors =
      result.errorCode === 'weak_password' || result.errorCode === 'same_password'
        ? { password: [result.error] }
        : undefined
    return data(
      {
        result: submission.reply({ hideFields: ['password', 'confirmPassword'], fieldErrors }),
        formError: fieldErrors ? null : result.error,
      },
      { status: 400, headers: result.headers },
    )
  }
  result.headers.append('Set-Cookie', await clearRecoveryMark())
  throw redirect('/dashboard?notice=password-updated', { headers: result.headers })
}

export default function ResetPassword() {
  const actionData = useActionData<typeof action>()
  const validate = useFormValidation(() =>
    import('~/auth/schemas').then((schemas) => schemas.ResetPasswordSchema),
  )
  const [form, fields] = useForm({
    id: 'reset-password',
    lastResult: actionData?.result,
    constraint: resetPasswordConstraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <AuthCard title="Choose a new password">
      {actionData?.formError ? (
        <FormMessage tone="error">{actionData.formError}</FormMessage>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <TextField
          label="New password"
          field={fields.password}
          type="password"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        />
        <TextField
          label="Repeat new password"
          field={fields.confirmPassword}
          type="password"
          autoComplete="new-password"
        />
        <SubmitButton pendingText="Saving…">Save new password</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Choose a new password | Subscribely' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
