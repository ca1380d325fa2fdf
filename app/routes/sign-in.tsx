import { getFormProps } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { AUTH_FAILURE_MESSAGES, SIGN_IN_PAGE_ERRORS } from '~/auth/auth-errors'
import { takeAuthFailure } from '~/auth/auth-failure.server'
import { safeNextPath } from '~/auth/safe-next-path'
import { SignInSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { handleSignIn } from '~/auth/sign-in-action.server'
import { AuthCard } from '~/components/auth-card'
import { NextStepForm, ResendConfirmationForm } from '~/components/auth-next-step'
import { CredentialsFields } from '~/components/credentials-fields'
import { FormMessage, SubmitButton } from '~/components/forms'
import { TextLink } from '~/components/links'
import { useValidatedForm } from '~/lib/forms/form-validation'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  const url = new URL(request.url)
  const errorKey = url.searchParams.get('error') ?? ''
  // Why the link failed, when the callback knew (auth-failure.server.ts): said once.
  const failure = errorKey === 'auth_failed' ? await takeAuthFailure(request) : null
  if (failure) headers.append('Set-Cookie', failure.clear)
  return data(
    {
      redirectTo: safeNextPath(url.searchParams.get('redirectTo'), '/dashboard'),
      pageError: failure
        ? AUTH_FAILURE_MESSAGES[failure.reason]
        : Object.hasOwn(SIGN_IN_PAGE_ERRORS, errorKey)
          ? SIGN_IN_PAGE_ERRORS[errorKey]
          : null,
      failureReason: failure?.reason ?? null,
      // Prefilled after a confirmation noticed on the check-email page.
      email: url.searchParams.get('email')?.slice(0, 320) ?? '',
      constraint: getSchemaConstraint(SignInSchema),
    },
    { headers },
  )
}

export const action = ({ request }: ActionFunctionArgs) => handleSignIn(request)

export default function SignIn() {
  const { redirectTo, pageError, failureReason, email, constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form, fields] = useValidatedForm(
    {
      id: 'sign-in',
      lastResult: actionData?.intent === 'oauth' ? undefined : actionData?.result,
      defaultValue: { email },
      constraint,
    },
    () => import('~/auth/schemas').then((schemas) => schemas.SignInSchema),
  )
  return (
    <AuthCard
      title="Sign in"
      intro="Welcome back. Sign in to manage your subscription."
      footer={
        <>
          New here? <TextLink to="/sign-up">Create an account</TextLink>
        </>
      }
    >
      <FormMessage tone="error">{pageError}</FormMessage>
      {failureReason === 'recovery' ? (
        <NextStepForm
          action="/forgot-password"
          label="Send a new link"
          pendingText="Sending link…"
        />
      ) : null}
      {failureReason === 'signup' ? <ResendConfirmationForm /> : null}
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      {actionData?.intent === 'password' && actionData.unconfirmedEmail ? (
        <ResendConfirmationForm email={actionData.unconfirmedEmail} />
      ) : null}
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <CredentialsFields
          fields={fields}
          form={form}
          redirectTo={redirectTo}
          password="current-password"
          autoFocusEmail
        />
        <div className="flex justify-end text-sm">
          <TextLink to="/forgot-password">Forgot your password?</TextLink>
        </div>
        {/* Password sign-in refused for now (linkFor): the emailed link is the way in. */}
        <SubmitButton
          name="intent"
          value="password"
          pendingText="Signing in…"
          variant={actionData?.linkFor ? 'secondary' : 'primary'}
        >
          Sign in
        </SubmitButton>
        <SubmitButton
          name="intent"
          value="magic-link"
          pendingText="Sending link…"
          variant={actionData?.linkFor ? 'primary' : 'secondary'}
          formNoValidate
        >
          Email me a sign-in link
        </SubmitButton>
      </Form>
      <Form method="post">
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <SubmitButton
          name="intent"
          value="oauth"
          pendingText="Redirecting to GitHub…"
          variant="secondary"
        >
          Continue with GitHub
        </SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Sign in | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
