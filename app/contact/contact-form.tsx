import { getFormProps, getTextareaProps, type SubmissionResult } from '@conform-to/react'
import { Form, useNavigation } from '@remix-run/react'
import { useEffect, useRef } from 'react'

import { FieldErrors, HoneypotField, TextField } from '~/components/forms'
import { useValidatedForm } from '~/lib/forms/form-validation'
import type { FormConstraint } from '~/lib/forms/schema-constraint'

import type { ContactMessage } from './schema'

const inputClass =
  'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 text-slate-900 shadow-sm focus:border-brand-600 aria-[invalid=true]:border-red-600'

/** The contact form: validated in the browser once its schema has loaded, and on the server. */
export function ContactForm({
  lastResult,
  constraint,
  defaultValue,
}: {
  lastResult?: SubmissionResult<string[]>
  constraint: FormConstraint
  defaultValue?: Partial<ContactMessage>
}) {
  const navigation = useNavigation()
  const pending = navigation.state === 'submitting' && navigation.formAction === '/contact'
  const [form, fields] = useValidatedForm(
    { id: 'contact', lastResult, constraint, defaultValue },
    () => import('./schema').then((schema) => schema.contactSchema),
  )
  return (
    <Form method="post" action="/contact" className="relative space-y-2" {...getFormProps(form)}>
      {form.errors ? (
        <div
          id={form.errorId}
          role="alert"
          className="rounded-md bg-red-50 p-3 text-sm text-red-800"
        >
          {form.errors[0]}
        </div>
      ) : null}
      <div className="grid gap-x-4 sm:grid-cols-2">
        <TextField label="First name" field={fields.firstName} autoComplete="given-name" />
        <TextField label="Last name" field={fields.lastName} autoComplete="family-name" />
      </div>
      <TextField label="Email" field={fields.email} type="email" autoComplete="email" />
      <TextField
        label="Company"
        field={fields.company}
        autoComplete="organization"
        hint="Required: it tells us which account or team your message is about. Writing for yourself? Put your own name."
      />
      <div>
        <label htmlFor={fields.message.id} className="block text-sm font-medium text-slate-800">
          Message
        </label>
        <textarea {...getTextareaProps(fields.message)} rows={6} className={inputClass} />
        <FieldErrors id={fields.message.errorId} errors={fields.message.errors} />
      </div>
      <HoneypotField />
      <button
        type="submit"
        disabled={pending}
        className="rounded-md bg-brand-600 px-5 py-2.5 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 disabled:opacity-60"
      >
        {pending ? 'Sending…' : 'Send message'}
      </button>
    </Form>
  )
}

/** Shown instead of the form once a message is accepted; takes focus so it is announced. */
export function ContactSent({ message }: { message: string }) {
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [])
  return (
    <div role="status" className="rounded-lg border border-brand-100 bg-brand-50 p-6">
      <h2 ref={heading} tabIndex={-1} className="text-lg font-semibold text-brand-800">
        Message sent
      </h2>
      <p className="mt-2 text-slate-700">{message}</p>
    </div>
  )
}
