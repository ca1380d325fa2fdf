import { useForm } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { useActionData, useLoaderData, useRevalidator, useSearchParams } from '@remix-run/react'
import { useEffect } from 'react'

import { mailNotSentMessage } from '~/auth/auth-errors'
import { handleConfirmEmail } from '~/auth/confirm-email-action.server'
import {
  forgetPendingSignUp,
  isPendingSignUpConfirmed,
  mailNotSentIn,
} from '~/auth/pending-sign-up.server'
import { ConfirmCodeSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { CodeForm, SendAgainForm } from '~/components/auth-next-step'
import { FormMessage } from '~/components/forms'
import { TextLink } from '~/components/links'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

const CHECK_EVERY_MS = 5_000

export async function loader({ request }: LoaderFunctionArgs) {
  // Confirmed in this browser (another tab): signed in, so on to the dashboard.
  const { headers } = await requireAnonymous(request)
  const params = new URL(request.url).searchParams
  const email = params.get('email') ?? ''
  // Confirmed on another device: signed in here, on to where it was going (a plan chosen first).
  if (email && (await isPendingSignUpConfirmed(request, email))) {
    headers.append('Set-Cookie', await forgetPendingSignUp())
    const next = new URLSearchParams({ notice: 'confirmed-sign-in', email })
    throw redirect(`/sign-in?${next}`, { headers })
  }
  headers.set('Cache-Control', 'no-store')
  const notYetConfirmed = params.has('check')
  const constraint = getSchemaConstraint(ConfirmCodeSchema)
  return data({ notYetConfirmed, constraint, notSentIn: await mailNotSentIn(request) }, { headers })
}

export function headers() {
  return { 'Cache-Control': 'no-store' }
}

export const action = ({ request }: ActionFunctionArgs) => handleConfirmEmail(request)

export default function SignUpConfirm() {
  const [params] = useSearchParams()
  const { notYetConfirmed, constraint, notSentIn } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  // "Send the confirmation again" from another page posts here with the address in the form.
  const email = params.get('email') || actionData?.email || ''
  const revalidator = useRevalidator()
  // Asks again every few seconds while visible; without JavaScript "I have confirmed it" does.
  useEffect(() => {
    if (notSentIn) return
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible' && revalidator.state === 'idle') {
        revalidator.revalidate()
      }
    }, CHECK_EVERY_MS)
    return () => clearInterval(timer)
  }, [revalidator, notSentIn])
  const [form, fields] = useForm<{ email: string; code: string }>({
    id: 'confirm-code',
    lastResult: actionData?.intent === 'code' ? actionData.result : undefined,
    constraint,
    defaultValue: { email },
  })
  if (notSentIn)
    return (
      <AuthCard
        title="Your email was not sent"
        footer={<TextLink to="/sign-up">Sign up again</TextLink>}
      >
        <FormMessage tone="error">{mailNotSentMessage(email, notSentIn)}</FormMessage>
      </AuthCard>
    )
  return (
    <AuthCard title="Check your email" footer={<TextLink to="/sign-in">Back to sign in</TextLink>}>
      <p className="text-slate-700">
        We sent an email to {email ? <strong>{email}</strong> : 'your email address'}. Open its
        link, or type the 6-digit code from it below. The link and the code work once and expire
        after an hour.
      </p>
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      <FormMessage tone="success">{actionData?.notice}</FormMessage>
      {notYetConfirmed && !actionData ? (
        <FormMessage tone="info">
          Not confirmed yet. Open the link in the email (on any device), then come back here.
        </FormMessage>
      ) : null}
      {email ? (
        <>
          <p className="text-sm text-slate-600">
            Confirmed on another device? This page moves on by itself, or{' '}
            <TextLink to={`/sign-up/confirm?${new URLSearchParams({ email, check: '1' })}`}>
              I have confirmed my email
            </TextLink>
            .
          </p>
          <CodeForm form={form} code={fields.code} email={email} label="Confirm with the code" />
          <SendAgainForm email={email} intent="resend" />
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

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
