import { getFormProps } from '@conform-to/react'
import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { safeNextPath } from '~/auth/safe-next-path'
import { SignUpSchema } from '~/auth/schemas'
import { requireAnonymous } from '~/auth/session.server'
import { handleSignUp } from '~/auth/sign-up-action.server'
import { PLAN_DEFINITIONS } from '~/billing/plans'
import { billingProvider } from '~/billing/registry.server'
import { AuthCard } from '~/components/auth-card'
import { CredentialsFields } from '~/components/credentials-fields'
import { FormMessage, SubmitButton } from '~/components/forms'
import { TextLink } from '~/components/links'
import { useValidatedForm } from '~/lib/forms/form-validation'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'
import { formatMoney } from '~/lib/pages/format'

export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  const redirectTo = safeNextPath(new URL(request.url).searchParams.get('redirectTo'), '/dashboard')
  const constraint = getSchemaConstraint(SignUpSchema)
  return data({ redirectTo, chosenPlan: chosenPlanOf(redirectTo), constraint }, { headers })
}

/** "Pro, $29.00/month, paying by card" when the visitor came from a plan's card, else null. */
function chosenPlanOf(redirectTo: string) {
  const [, key, provider] = /^\/subscribe\/([a-z]+)(?:\?provider=([a-z]+))?$/.exec(redirectTo) ?? []
  const plan = PLAN_DEFINITIONS.find((item) => item.key === key)
  const paying = billingProvider(provider)?.label
  const price = plan && `${formatMoney(plan.amount, plan.currency)}/${plan.interval}`
  return plan ? `${plan.name}, ${price}${paying ? `, paying ${paying}` : ''}` : null
}

export const action = ({ request }: ActionFunctionArgs) => handleSignUp(request)

export default function SignUp() {
  const { redirectTo, chosenPlan, constraint } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  const [form, fields] = useValidatedForm(
    { id: 'sign-up', lastResult: actionData?.result, constraint },
    () => import('~/auth/schemas').then((schemas) => schemas.SignUpSchema),
  )
  return (
    <AuthCard
      title="Create your account"
      intro={
        chosenPlan
          ? `You're signing up for ${chosenPlan}. Confirm your email and you go straight on to the checkout.`
          : 'Start with an account, then pick a plan when you are ready.'
      }
      footer={
        <>
          Already have an account?{' '}
          <TextLink to={`/sign-in?${new URLSearchParams({ redirectTo })}`}>Sign in</TextLink>
        </>
      }
    >
      <FormMessage tone="error">{actionData?.formError}</FormMessage>
      <Form method="post" {...getFormProps(form)} className="space-y-4">
        <CredentialsFields
          fields={fields}
          form={form}
          redirectTo={redirectTo}
          password="new-password"
          autoFocusEmail
        />
        <SubmitButton pendingText="Creating account…">Create account</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Create an account | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
