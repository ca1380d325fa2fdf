import { getFormProps } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { handleForgotPassword } from '~/auth/password-reset-actions.server'
import { ForgotPasswordSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { FormMessage, HoneypotField, SubmitButton, TextField } from '~/components/forms'
import { TextLink } from '~/components/links'
import { useValidatedForm } from '~/lib/forms/form-validation'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  return data({ constraint: getSchemaConstraint(ForgotPasswordSchema) }, { headers })
}

export const action = ({ request }: ActionFunctionArgs) => handleForgotPassword(request)

export default function ForgotPassword() {
  const { constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form, fields] = useValidatedForm(
    { id: 'forgot-password', lastResult: actionData?.result, constraint },
    () => import('~/auth/schemas').then((schemas) => schemas.ForgotPasswordSchema),
  )
  return (
    <AuthCard
      title="Reset your password"
      intro="Enter your account's email and we will send you a link to choose a new password."
      footer={<TextLink to="/sign-in">Back to sign in</TextLink>}
    >
      {actionData?.sentTo ? (
        <FormMessage tone="success">
          If an account exists for <strong>{actionData.sentTo}</strong>, a reset link is on its way.
          It expires after an hour.
        </FormMessage>
      ) : null}
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <HoneypotField />
        <TextField label="Email" field={fields.email} type="email" autoComplete="email" />
        <SubmitButton pendingText="Sending link…">Send reset link</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Reset your password | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
