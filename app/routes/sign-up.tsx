import { getFormProps, useForm } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, Link, useActionData, useLoaderData } from '@remix-run/react'
import { signUp } from '~/auth/auth.server'
import { rememberAfterSignUp } from '~/billing/plan-intent.server'
import {
  hitAuthRateLimit,
  tooManyAttemptsInit,
  tooManyAttemptsMessage,
} from '~/auth/rate-limits.server'
import { safeNextPath } from '~/auth/safe-next-path'
import { PASSWORD_MIN_LENGTH, signUpConstraint } from '~/auth/constraints'
import { SignUpSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import {
  FieldErrors,
  FormMessage,
  HoneypotField,
  isHoneypotFilled,
  SubmitButton,
  TextField,
} from '~/components/forms'
import { refuseCrossSite } from '~/lib/cross-site.server'
import { useFormValidation, REVALIDATE_ON, VALIDATE_ON } from '~/lib/form-validation'
import { readFormData } from '~/lib/http.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  const redirectTo = safeNextPath(new URL(request.url).searchParams.get('redirectTo'), '/dashboard')
  return data({ redirectTo }, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  refuseCrossSite(request)
  const formData = await readFormData(request)
  const submission = parseWithZod(formData, { schema: SignUpSchema })
  if (submission.status !== 'success') {
    return data(
      { result: submission.reply({ hideFields: ['password'] }), formError: null },
      { status: 400 },
    )
  }
  const limit = await hitAuthRateLimit(request, 'sign-up', submission.value.email)
  if (!limit.allowed) {
    return data(
      {
        result: submission.reply({ hideFields: ['password'] }),
        formError: tooManyAttemptsMessage(limit.retryAfterSeconds),
      },
      tooManyAttemptsInit(limit),
    )
  }
  const confirm = `/sign-up/confirm?${new URLSearchParams({ email: submission.value.email })}`
  // Bots get the same answer as people, and no account.
  if (isHoneypotFilled(formData)) throw redirect(confirm)
  const result = await signUp(
    request,
    submission.value.email,
    submission.value.password,
    submission.value.redirectTo,
  )
  if (result.error) {
    const fieldErrors: Record<string, string[]> | undefined =
      result.errorCode === 'weak_password'
        ? { password: [result.error] }
        : result.errorCode === 'user_already_exists'
          ? { email: [result.error] }
          : undefined
    return data(
      {
        result: submission.reply({ hideFields: ['password'], fieldErrors }),
        formError: fieldErrors ? null : result.error,
      },
      { status: 400, headers: result.headers },
    )
  }
  const keep = await rememberAfterSignUp(submission.value.redirectTo ?? '')
  if (keep) result.headers.append('Set-Cookie', keep)
  throw redirect(confirm, { headers: result.headers })
}

export default function SignUp() {
  const { redirectTo } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const validate = useFormValidation(() =>
    import('~/auth/schemas').then((schemas) => schemas.SignUpSchema),
  )
  const [form, fields] = useForm({
    id: 'sign-up',
    lastResult: actionData?.result,
    constraint: signUpConstraint,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    onValidate: validate,
  })
  return (
    <AuthCard
      title="Create your account"
      intro="Start with an account, then pick a plan when you are ready."
      footer={
        <>
          Already have an account?{' '}
          <Link to="/sign-in" className="font-semibold text-brand-700 hover:underline">
            Sign in
          </Link>
        </>
      }
    >
      {actionData?.formError ? (
        <FormMessage tone="error">{actionData.formError}</FormMessage>
      ) : null}
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <HoneypotField />
        <input type="hidden" name="redirectTo" value={redirectTo} />
        <TextField label="Email" field={fields.email} type="email" autoComplete="email" />
        <TextField
          label="Password"
          field={fields.password}
          type="password"
          autoComplete="new-password"
          hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        />
        <FieldErrors id={form.errorId} errors={form.errors} />
        <SubmitButton pendingText="Creating account…">Create account</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create an account | Subscribely' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
