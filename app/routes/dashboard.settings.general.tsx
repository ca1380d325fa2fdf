import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { useActionData, useLoaderData } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { requireUser, requireUserWith } from '~/auth/session.server'
import { SettingsHeader, SettingsSection } from '~/components/settings-section'
import { messageFor, resultFor } from '~/lib/forms/form-reply'
import { getSchemaConstraint } from '~/lib/forms/schema-constraint'
import { AvatarForm } from '~/profile/avatar-form'
import { DisplayNameForm } from '~/profile/display-name-form'
import { handleGeneralSettings } from '~/profile/general-action.server'
import { profileView } from '~/profile/profile.server'
import { DisplayNameSchema } from '~/profile/schemas'

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await requireUserWith(request, accountSummaryOf(request))
  const profile = profileView(user.id, summary.profile)
  const constraint = getSchemaConstraint(DisplayNameSchema)
  return data({ email: user.email, ...profile, constraint }, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  const { user, supabase, asUser, headers } = await requireUser(request)
  return handleGeneralSettings(request, { supabase, asUser, userId: user.id }, headers)
}

export default function GeneralSettings() {
  const { email, displayName, avatarUrl, constraint } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  return (
    <div className="space-y-8">
      <SettingsHeader title="General" description="How you appear in the product." />
      <SettingsSection id="name" title="Your name">
        <DisplayNameForm
          displayName={displayName}
          lastResult={resultFor(reply, 'display-name')}
          message={messageFor(reply, 'display-name')}
          constraint={constraint}
        />
      </SettingsSection>
      <SettingsSection id="avatar" title="Avatar">
        <AvatarForm
          name={displayName ?? email}
          avatarUrl={avatarUrl}
          lastResult={resultFor(reply, 'avatar')}
          message={messageFor(reply, 'avatar') ?? messageFor(reply, 'remove-avatar')}
        />
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'General settings | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
