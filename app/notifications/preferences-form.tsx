import { getFormProps, type SubmissionResult, useForm } from '@conform-to/react'
import { Form } from '@remix-run/react'

import { FormMessage, SubmitButton } from '~/components/forms'
import { REVALIDATE_ON, VALIDATE_ON } from '~/lib/forms/form-validation'

import { NOTIFICATION_LABELS } from './kinds'
import type { NotificationPreferences, NotificationPreferencesInput } from './schemas'

const FIELDS = [
  ['productUpdates', 'product_updates'],
  ['billing', 'billing'],
  ['security', 'security'],
] as const

/** One checkbox per kind of email; no `onValidate`: a checkbox cannot be invalid. */
export function PreferencesForm({
  preferences,
  lastResult,
  message,
}: {
  preferences: NotificationPreferences
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const [form, fields] = useForm<NotificationPreferencesInput>({
    id: 'notifications',
    lastResult,
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
  })
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-4">
      {message ? <FormMessage tone="success">{message}</FormMessage> : null}
      <fieldset className="space-y-4">
        <legend className="sr-only">Emails we may send you</legend>
        {FIELDS.map(([name, kind]) => {
          const field = fields[name]
          const descriptionId = `${field.id}-description`
          return (
            <div key={name} className="flex items-start gap-3">
              <input
                id={field.id}
                name={field.name}
                type="checkbox"
                defaultChecked={preferences[name]}
                aria-describedby={descriptionId}
                className="mt-0.5 h-4 w-4 shrink-0 rounded border-slate-400 text-brand-600"
              />
              <div>
                <label htmlFor={field.id} className="text-sm font-medium text-slate-900">
                  {NOTIFICATION_LABELS[kind].label}
                </label>
                <p id={descriptionId} className="text-sm text-slate-600">
                  {NOTIFICATION_LABELS[kind].description}
                </p>
              </div>
            </div>
          )
        })}
      </fieldset>
      <div className="sm:w-48">
        <SubmitButton pendingText="Saving…">Save preferences</SubmitButton>
      </div>
    </Form>
  )
}
