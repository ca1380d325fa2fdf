import { getFormProps } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { handleResetPassword } from '~/auth/password-reset-actions.server'
import { isRecoveryRequest } from '~/auth/recovery.server'
import { ResetPasswordSchema } from '~/auth/schemas'
import { requireUser } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { FormMessage, NewPasswordFields, SubmitButton } from '~/components/forms'
import { useValidatedForm } from '~/lib/forms/form-validation'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

// Only the recovery link's session: a stolen or shared one cannot take the account over.
export async function loader({ request }: LoaderFunctionArgs) {
  const { user, headers } = await requireUser(request)
  if (!(await isRecoveryRequest(request, user)))
    throw redirect('/forgot-password?notice=recovery-link-needed', { headers })
  return data({ constraint: getSchemaConstraint(ResetPasswordSchema) }, { headers })
}

export const action = ({ request }: ActionFunctionArgs) => handleResetPassword(request)

export default function ResetPassword() {
  const { constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form, fields] = useValidatedForm(
    { id: 'reset-password', lastResult: actionData?.result, constraint },
    () => import('~/auth/schemas').then((schemas) => schemas.ResetPasswordSchema),
  )
  return (
    <AuthCard title="Choose a new password">
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <NewPasswordFields password={fields.password} confirmPassword={fields.confirmPassword} />
        <SubmitButton pendingText="Saving…">Save new password</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Choose a new password | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
