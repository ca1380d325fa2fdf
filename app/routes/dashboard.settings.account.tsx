import {
  data,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'
import { handleAccountSettings } from '~/account/account-action.server'
import { getEmailState, requestedEmail } from '~/account/credentials.server'
import { DeleteAccountForm } from '~/account/delete-account-form'
import { subscriptionToEnd } from '~/account/deletion-rules'
import { EmailForm } from '~/account/email-form'
import { PasswordForm } from '~/account/password-form'
import { requireUser } from '~/auth/session.server'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { FormMessage, SubmitButton } from '~/components/forms'
import { SettingsHeader, SettingsSection } from '~/components/settings-section'
import { messageFor, resultFor } from '~/lib/form-reply'
import { getOwnSubscription } from '~/subscriptions/store.server'
import { refuseCrossSite } from '~/lib/cross-site.server'

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, supabase, headers } = await requireUser(request)
  const [emailState, subscription, requested] = await Promise.all([
    getEmailState(supabase),
    getOwnSubscription(supabase, user.id),
    requestedEmail(request),
  ])
  const email = emailState.email || user.email
  // Supabase's pending address wins; else the one asked for here (see requestedEmail).
  const pendingEmail =
    emailState.pendingEmail ?? (requested && requested !== email.toLowerCase() ? requested : null)
  const confirmed = new URL(request.url).searchParams.get('email') === 'confirmed'
  headers.set('Cache-Control', 'private, no-store')
  return data(
    {
      email,
      pendingEmail,
      emailNotice: confirmed
        ? emailState.pendingEmail
          ? 'Confirmation received. Open the link we sent to your other address to finish the change.'
          : `Your email address is now ${emailState.email}.`
        : null,
      hasLiveSubscription: subscriptionToEnd(subscription) !== null,
    },
    { headers },
  )
}

export async function action({ request }: ActionFunctionArgs) {
  refuseCrossSite(request)
  const { user, supabase, headers } = await requireUser(request)
  return handleAccountSettings(request, supabase, user, headers)
}

export function headers() {
  return { 'Cache-Control': 'private, no-store' }
}

export default function AccountSettings() {
  const { email, pendingEmail, emailNotice, hasLiveSubscription } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  return (
    <div className="space-y-8">
      <SettingsHeader title="Account" description="Sign-in details, sessions and your data." />
      {emailNotice ? <FormMessage tone="success">{emailNotice}</FormMessage> : null}
      <SettingsSection id="email" title="Email address">
        <EmailForm
          email={email}
          pendingEmail={pendingEmail}
          lastResult={resultFor(reply, 'change-email')}
          message={messageFor(reply, 'change-email')}
        />
      </SettingsSection>
      <SettingsSection id="password" title="Password">
        <PasswordForm
          lastResult={resultFor(reply, 'change-password')}
          message={messageFor(reply, 'change-password')}
        />
      </SettingsSection>
      <SettingsSection
        id="sessions"
        title="Sessions"
        intro="Signed in on a device you no longer use? Sign out everywhere, including here."
      >
        {/* A confirmation step that needs no JavaScript: the button is behind the summary. */}
        <details className="group max-w-md">
          <summary className="inline-block cursor-pointer rounded-md border border-slate-300 bg-white px-4 py-2 text-sm font-semibold text-slate-900 shadow-sm hover:bg-slate-50 group-open:mb-3">
            Sign out of all sessions
          </summary>
          <Form method="post" className="space-y-3 rounded-md border border-slate-200 p-4">
            <p className="text-sm text-slate-700">
              Every device and browser signed in to your account is signed out at once, this one
              included. You will need to sign in again here.
            </p>
            <div className="sm:w-64">
              <SubmitButton
                name="intent"
                value="sign-out-everywhere"
                variant="danger"
                pendingText="Signing out…"
              >
                Yes, sign out everywhere
              </SubmitButton>
            </div>
          </Form>
        </details>
      </SettingsSection>
      <SettingsSection id="delete" title="Delete account" tone="danger">
        <DeleteAccountForm
          hasLiveSubscription={hasLiveSubscription}
          lastResult={resultFor(reply, 'delete-account')}
        />
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Account settings | Subscribely' }]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
