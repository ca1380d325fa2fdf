import { useForm } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { useActionData, useLoaderData, useSearchParams } from '@remix-run/react'

import { mailMinuteMessage } from '~/auth/auth-errors'
import { handleConfirmEmail } from '~/auth/confirm-email-action.server'
import { ConfirmCodeSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'
import { CodeForm, SendAgainForm } from '~/components/auth-next-step'
import { FormMessage } from '~/components/forms'
import { TextLink } from '~/components/links'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

// For a phone's mail app that opens links elsewhere; the same answer, account or not.
export const action = ({ request }: ActionFunctionArgs) =>
  handleConfirmEmail(request, { after: '/dashboard', resend: false })

export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  // Set by "Send it again" within the address's minute (sign-in-action.server.ts).
  const wait = Number(new URL(request.url).searchParams.get('wait'))
  const notice = wait >= 1 && wait <= 60 ? mailMinuteMessage(Math.ceil(wait)) : null
  return data({ constraint: getSchemaConstraint(ConfirmCodeSchema), notice }, { headers })
}

export default function SignInConfirm() {
  const [params] = useSearchParams()
  const { constraint, notice } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const email = params.get('email')
  const [form, fields] = useForm<{ email: string; code: string }>({
    id: 'sign-in-code',
    lastResult: actionData?.result,
    constraint,
    defaultValue: { email: email ?? '' },
  })
  return (
    <AuthCard title="Check your email" footer={<TextLink to="/sign-in">Back to sign in</TextLink>}>
      <p className="text-slate-700">
        If an account exists for {email ? <strong>{email}</strong> : 'that address'}, we sent it a
        sign-in link. Open it in this browser to sign in, or type the 6-digit code from the same
        email below; both work once and expire after an hour.
      </p>
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      <FormMessage tone="info">{notice}</FormMessage>
      {email ? (
        <>
          <CodeForm form={form} code={fields.code} email={email} label="Sign in with the code" />
          <SendAgainForm email={email} intent="magic-link" action="/sign-in" />
        </>
      ) : null}
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Sign-in link sent | Subscribely' }]
