import { getFormProps, useForm } from '@conform-to/react'
import type { ActionFunctionArgs, MetaFunction } from '@remix-run/node'
import { Form, Link, useActionData, useSearchParams } from '@remix-run/react'
import { handleConfirmEmail } from '~/auth/confirm-email-action.server'
import { confirmCodeConstraint } from '~/auth/constraints'
import { AuthCard } from '~/components/auth-card'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { FormMessage, SubmitButton, TextField } from '~/components/forms'
import { refuseCrossSite } from '~/lib/cross-site.server'

export async function action({ request }: ActionFunctionArgs) {
  refuseCrossSite(request)
  return handleConfirmEmail(request)
}

export default function SignUpConfirm() {
  const [params] = useSearchParams()
  const actionData = useActionData<typeof action>()
  const email = params.get('email') ?? ''
  const [form, fields] = useForm<{ email: string; code: string }>({
    id: 'confirm-code',
    lastResult: actionData?.intent === 'code' ? actionData.result : undefined,
    constraint: confirmCodeConstraint,
    defaultValue: { email },
  })
  return (
    <AuthCard
      title="Check your email"
      footer={
        <Link to="/sign-in" className="font-semibold text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      <p className="text-slate-700">
        We sent an email to {email ? <strong>{email}</strong> : 'your email address'}. Open its
        link, or type the 6-digit code from it below. The link and the code work once and expire
        after an hour.
      </p>
      {actionData?.formError ? (
        <FormMessage tone="error">{actionData.formError}</FormMessage>
      ) : null}
      {actionData?.notice ? <FormMessage tone="success">{actionData.notice}</FormMessage> : null}
      {email ? (
        <>
          <Form method="post" {...getFormProps(form)} className="space-y-4">
            <input type="hidden" name="email" value={email} />
            <TextField
              label="Code from the email"
              field={fields.code}
              autoComplete="one-time-code"
            />
            <SubmitButton name="intent" value="code" pendingText="Checking…">
              Confirm with the code
            </SubmitButton>
          </Form>
          <Form method="post" className="text-sm text-slate-600">
            <input type="hidden" name="email" value={email} />
            No email? Check your spam folder, or{' '}
            <button
              type="submit"
              name="intent"
              value="resend"
              className="font-semibold text-brand-700 hover:underline"
            >
              send it again
            </button>
            .
          </Form>
        </>
      ) : (
        <p className="text-sm text-slate-600">
          No email? Check your spam folder, or sign up again to get a new link.
        </p>
      )}
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Confirm your email | Subscribely' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
