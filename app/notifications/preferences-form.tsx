import { getFormProps, useForm, type SubmissionResult } from '@conform-to/react'
import { parseWithZod } from '@conform-to/zod/v4'
import { Form } from '@remix-run/react'
import { FormMessage, SubmitButton } from '~/components/forms'
import { NOTIFICATION_LABELS } from './kinds'
import { NotificationPreferencesSchema, type NotificationPreferences } from './schemas'

const FIELDS = [
  ['productUpdates', 'product_updates'],
  ['billing', 'billing'],
  ['security', 'security'],
] as const

/** One checkbox per kind of email. */
export function PreferencesForm({
  preferences,
  lastResult,
  message,
}: {
  preferences: NotificationPreferences
  lastResult?: SubmissionResult<string[]>
  message: string | null
}) {
  const [form, fields] = useForm({
    id: 'notifications',
    lastResult,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: NotificationPreferencesSchema }),
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
                className="mt-1 h-4 w-4 rounded border-slate-400 text-brand-600"
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
