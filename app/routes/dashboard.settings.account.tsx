import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, useActionData, useLoaderData } from '@remix-run/react'

import { handleAccountSettings } from '~/account/account-action.server'
import { requestedEmail } from '~/account/credentials.server'
import { DeleteAccountForm } from '~/account/delete-account-form'
import { subscriptionToEnd } from '~/account/deletion-rules'
import { EmailForm } from '~/account/email-form'
import { PasswordForm } from '~/account/password-form'
import * as schemas from '~/account/schemas'
import { accountSummaryOf, readAccountSettings } from '~/account/summary.server'
import { requireUser, requireUserWith } from '~/auth/session.server'
import { FormMessage, SubmitButton } from '~/components/forms'
import { SettingsHeader, SettingsSection } from '~/components/settings-section'
import { type FormReply, messageFor, resultFor } from '~/lib/forms/form-reply'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'
import { isLiveStatus } from '~/subscriptions/status'

export async function loader({ request }: LoaderFunctionArgs) {
  const [session, { subscription, account }] = await requireUserWith(
    request,
    accountSummaryOf(request, readAccountSettings),
  )
  const { user, headers } = session
  const url = new URL(request.url)
  // Changed elsewhere: this browser's token (the sidebar) names the old address until refreshed.
  if (account && account.email !== user.email) {
    const { data: refreshed } = await session.supabase.auth.refreshSession()
    if (refreshed.user?.email === account.email)
      throw redirect(`${url.pathname}${url.search}`, { headers })
  }
  const requested = await requestedEmail(request)
  const email = account?.email || user.email
  // Supabase's pending address wins; else the one asked for here (see requestedEmail).
  const pendingEmail =
    account?.pending_email ?? (requested && requested !== email.toLowerCase() ? requested : null)
  const changed = url.searchParams.get('email') === 'confirmed' && !pendingEmail
  const methods = account ?? { password: true, github: false }
  return data(
    {
      email,
      pendingEmail,
      emailNotice: changed ? `Your email address is now ${email}.` : null,
      opened: pendingEmail
        ? { current: account?.waiting_for === 'new', new: account?.waiting_for === 'current' }
        : null,
      hasLiveSubscription: subscriptionToEnd(subscription) !== null,
      keepUntil:
        isLiveStatus(subscription?.status) && !subscription?.cancel_at_period_end
          ? (subscription?.current_period_end ?? null)
          : null,
      methods: { password: methods.password, github: methods.github },
      constraint: {
        email: getSchemaConstraint(schemas.ChangeEmailSchema),
        password: getSchemaConstraint(
          methods.password ? schemas.ChangePasswordSchema : schemas.SetPasswordSchema,
        ),
        deleteAccount: getSchemaConstraint(schemas.DeleteAccountSchema),
      },
    },
    { headers },
  )
}

export async function action({ request }: ActionFunctionArgs) {
  const { user, supabase, asUser, headers } = await requireUser(request)
  return handleAccountSettings(request, { supabase, asUser }, user, headers)
}

export default function AccountSettings() {
  const {
    email,
    pendingEmail,
    opened,
    emailNotice,
    hasLiveSubscription,
    keepUntil,
    methods,
    constraint,
  } = useLoaderData<typeof loader>()
  const reply: FormReply | undefined = useActionData<typeof action>()
  const passwordIntent = methods.password ? 'change-password' : 'set-password'
  const signInMethods = [
    ['Email and password', methods.password, methods.password ? email : 'No password yet'],
    ['GitHub', methods.github, methods.github ? 'Connected' : 'Not connected'],
  ] as const
  return (
    <div className="space-y-8">
      <SettingsHeader title="Account" description="Sign-in details, sessions and your data." />
      <FormMessage tone="success">{emailNotice}</FormMessage>
      <SettingsSection id="email" title="Email address">
        <EmailForm
          email={email}
          pending={pendingEmail && opened ? { email: pendingEmail, opened } : null}
          lastResult={resultFor(reply, 'change-email')}
          message={messageFor(reply, 'change-email')}
          constraint={constraint.email}
          hasPassword={methods.password}
        />
      </SettingsSection>
      <SettingsSection
        id="sign-in-methods"
        title="Sign-in methods"
        intro="The ways you can sign in to this account."
      >
        <ul className="max-w-md divide-y divide-slate-200 rounded-md border border-slate-200">
          {signInMethods.map(([name, connected, detail]) => (
            <li key={name} className="flex flex-wrap items-center justify-between gap-2 px-4 py-3">
              <span className="text-sm font-medium text-slate-900">{name}</span>
              <span
                className={`text-sm ${connected ? 'text-green-800' : 'text-slate-600'}`}
                data-connected={connected}
              >
                {connected ? '✓ ' : ''}
                {detail}
              </span>
            </li>
          ))}
        </ul>
      </SettingsSection>
      <SettingsSection
        id="password"
        title={methods.password ? 'Password' : 'Set a password'}
        intro={
          methods.password
            ? undefined
            : `You sign in with GitHub. Set a password to also sign in with ${email} and a password.`
        }
      >
        <PasswordForm
          // A new form once the password is set (the change form asks for the current one);
          // "Your password is set" stays on it.
          key={passwordIntent}
          mode={methods.password ? 'change' : 'set'}
          lastResult={resultFor(reply, passwordIntent)}
          message={messageFor(reply, passwordIntent) ?? messageFor(reply, 'set-password')}
          needsCode={reply?.intent === passwordIntent && Boolean(reply.needsCode)}
          offerResetLink={reply?.intent === passwordIntent && Boolean(reply.offerResetLink)}
          constraint={constraint.password}
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
          keepUntil={keepUntil}
          lastResult={resultFor(reply, 'delete-account')}
          constraint={constraint.deleteAccount}
          message={messageFor(reply, 'delete-account')}
          hasPassword={methods.password}
        />
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Account settings | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
