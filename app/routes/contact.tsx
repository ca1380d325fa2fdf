import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { getOptionalUserWith } from '~/auth/session.server'
import { TextLink } from '~/components/links'
import { ContactForm, ContactSent } from '~/contact/contact-form'
import { handleContactForm } from '~/contact/form-action.server'
import { contactSchema } from '~/contact/schema'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'
import type { PageHandle } from '~/lib/pages/page-handle'

/** Signed in, the form starts with the account's address and name (the profile's, split at the first space). */
export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await getOptionalUserWith(request, accountSummaryOf(request))
  if (user) headers.set('Cache-Control', 'private, no-store')
  const [firstName, ...lastName] = (summary?.profile?.display_name ?? '').trim().split(/\s+/)
  const defaults = user && { email: user.email, firstName, lastName: lastName.join(' ') }
  return data({ constraint: getSchemaConstraint(contactSchema), defaults }, { headers })
}

export const action = ({ request }: ActionFunctionArgs) => handleContactForm(request)

export default function ContactPage() {
  const { constraint, defaults } = useLoaderData<typeof loader>()
  const actionData = useActionData<typeof action>()
  return (
    <div className="mx-auto max-w-2xl px-4 py-16">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Contact us</h1>
      <p className="mt-3 text-slate-700">
        Questions about plans, billing or your account? Send us a message and we will answer within
        one business day.
      </p>
      <div className="mt-8">
        {actionData?.status === 'sent' ? (
          <>
            <ContactSent message={actionData.message} />
            <p className="mt-6 text-sm">
              <TextLink to="/contact">Send another message</TextLink>
            </p>
          </>
        ) : (
          <ContactForm
            lastResult={actionData?.result}
            constraint={constraint}
            defaultValue={defaults || undefined}
          />
        )}
      </div>
    </div>
  )
}

export const handle: PageHandle = { sharedAnonymousRender: true }

export const meta: MetaFunction = () => [
  { title: 'Contact us | Subscribely' },
  { name: 'description', content: 'Questions before or after you subscribe? Send us a message.' },
]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
