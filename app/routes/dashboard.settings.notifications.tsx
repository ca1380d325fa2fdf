import { parseWithZod } from '@conform-to/zod/v4'
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
import { reply } from '~/lib/forms/form-reply'
import { readFormData } from '~/lib/server/http.server'
import { preferencesOf, saveOwnPreferences } from '~/notifications/preferences.server'
import { PreferencesForm } from '~/notifications/preferences-form'
import { NotificationPreferencesSchema } from '~/notifications/schemas'

export async function loader({ request }: LoaderFunctionArgs) {
  const [{ headers }, { profile }] = await requireUserWith(request, accountSummaryOf(request))
  return data({ preferences: preferencesOf(profile) }, { headers })
}

export async function action({ request }: ActionFunctionArgs) {
  const { user, asUser, headers } = await requireUser(request)
  const submission = parseWithZod(await readFormData(request, { headers }), {
    schema: NotificationPreferencesSchema,
  })
  const intent = 'notifications'
  if (submission.status !== 'success') {
    return reply(submission.reply(), { intent, message: null }, { status: 400, headers })
  }
  await saveOwnPreferences(asUser, user.id, submission.value)
  const message = 'Your preferences have been saved.'
  return reply(submission.reply(), { intent, message }, { headers })
}

export default function NotificationSettings() {
  const { preferences } = useLoaderData<typeof loader>()
  const reply = useActionData<typeof action>()
  return (
    <div className="space-y-8">
      <SettingsHeader title="Notifications" description="Choose which emails we send you." />
      <SettingsSection
        id="emails"
        title="Email"
        intro="Emails you ask for yourself, such as sign-in links, password resets and email confirmations, are always sent."
      >
        <PreferencesForm
          // Remount after a save so the checkboxes show what was stored.
          key={JSON.stringify(preferences)}
          preferences={preferences}
          lastResult={reply?.result}
          message={reply?.message ?? null}
        />
      </SettingsSection>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Notification settings | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
