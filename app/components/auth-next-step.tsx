import { type FieldMetadata, type FormMetadata, getFormProps } from '@conform-to/react'
import { Form } from '@remix-run/react'
import { useId } from 'react'

import { SubmitButton, TextField } from './forms'
import { LINK } from './links'

/** The way on from a failed link or sign-in; with a known address, only the button shows. */
export function NextStepForm({
  action,
  intent,
  email,
  label,
  pendingText,
}: {
  action: string
  intent?: string
  email?: string | null
  label: string
  pendingText: string
}) {
  const id = useId()
  return (
    <Form method="post" action={action} className="space-y-3">
      {intent ? <input type="hidden" name="intent" value={intent} /> : null}
      {email ? (
        <input type="hidden" name="email" value={email} />
      ) : (
        <div>
          <label htmlFor={id} className="block text-sm font-medium text-slate-800">
            Your email address
          </label>
          <input
            id={id}
            name="email"
            type="email"
            required
            autoComplete="email"
            className="mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm focus:border-brand-600"
          />
        </div>
      )}
      <SubmitButton name={intent ? 'intent' : undefined} value={intent} pendingText={pendingText}>
        {label}
      </SubmitButton>
    </Form>
  )
}

export function ResendConfirmationForm({ email }: { email?: string | null }) {
  const action = email ? `/sign-up/confirm?${new URLSearchParams({ email })}` : '/sign-up/confirm'
  return (
    <NextStepForm
      action={action}
      intent="resend"
      email={email}
      label="Send the confirmation again"
      pendingText="Sending…"
    />
  )
}

/** A check-email page's "send it again": `intent` posted to `action` (default: the page). */
export function SendAgainForm(props: { email: string; intent: string; action?: string }) {
  return (
    <Form method="post" action={props.action} className="text-sm text-slate-600">
      <input type="hidden" name="email" value={props.email} />
      No email? Check your spam folder, or{' '}
      <button type="submit" name="intent" value={props.intent} className={LINK}>
        send it again
      </button>
      .
    </Form>
  )
}

export function CodeForm(props: {
  form: FormMetadata<{ email: string; code: string }>
  code: FieldMetadata<string>
  email: string
  label: string
}) {
  return (
    <Form method="post" {...getFormProps(props.form)} className="space-y-4">
      <input type="hidden" name="email" value={props.email} />
      <TextField label="Code from the email" field={props.code} autoComplete="one-time-code" />
      <SubmitButton name="intent" value="code" pendingText="Checking…">
        {props.label}
      </SubmitButton>
    </Form>
  )
}
