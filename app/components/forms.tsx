import { type FieldMetadata, getInputProps } from '@conform-to/react'
import { useNavigation } from '@remix-run/react'
import { type ReactNode, useId } from 'react'

import { PASSWORD_MIN_LENGTH } from '~/auth/limits'
import { HONEYPOT_FIELD } from '~/lib/forms/honeypot'

import { BUTTON } from './links'

/** A labelled input with its errors, wired for screen readers (aria-invalid/-describedby). */
export function TextField({
  label,
  field,
  type = 'text',
  autoComplete,
  hint,
  autoFocus,
  accept,
}: {
  label: string
  field: FieldMetadata<string | File | undefined>
  type?: 'text' | 'email' | 'password' | 'file'
  autoComplete?: string
  hint?: string
  autoFocus?: boolean
  accept?: string
}) {
  const errorId = field.errors?.length ? field.errorId : undefined
  const hintId = hint ? `${field.id}-hint` : undefined
  return (
    <div>
      <label htmlFor={field.id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <input
        {...getInputProps(field, { type })}
        autoComplete={autoComplete}
        inputMode={autoComplete === 'one-time-code' ? 'numeric' : undefined}
        autoFocus={autoFocus}
        accept={accept}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
        className={
          type === 'file'
            ? 'mt-1 block w-full text-sm text-slate-800 file:mr-3 file:rounded-md file:border file:border-slate-300 file:bg-white file:px-3 file:py-2 file:text-sm file:font-semibold'
            : 'mt-1 block w-full rounded-md border border-slate-300 px-3 py-2 shadow-sm aria-[invalid]:border-red-600 focus:border-brand-600'
        }
      />
      {hint ? (
        <p id={hintId} className="mt-1 text-xs text-slate-600">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={field.errorId} errors={field.errors} />
    </div>
  )
}

export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (!errors?.length) return null
  return (
    <ul id={id} className="mt-1 space-y-1 text-sm text-red-700">
      {errors.map((error) => (
        <li key={error}>{error}</li>
      ))}
    </ul>
  )
}

/** A form-level message (error or notice), announced to screen readers; nothing when empty. */
export function FormMessage({
  tone,
  children,
  id,
}: {
  tone: 'error' | 'info' | 'success'
  children: ReactNode
  id?: string
}) {
  if (!children) return null
  const styles = {
    error: 'border-red-200 bg-red-50 text-red-800',
    info: 'border-brand-100 bg-brand-50 text-brand-800',
    success: 'border-green-200 bg-green-50 text-green-800',
  }[tone]
  return (
    <div
      id={id}
      role={tone === 'error' ? 'alert' : 'status'}
      className={`rounded-md border px-4 py-3 text-sm ${styles}`}
    >
      {children}
    </div>
  )
}

export function SubmitButton({
  children,
  pendingText,
  name,
  value,
  variant = 'primary',
  formNoValidate,
}: {
  children: ReactNode
  pendingText: string
  name?: string
  value?: string
  variant?: keyof typeof BUTTON
  formNoValidate?: boolean
}) {
  const navigation = useNavigation()
  const pending =
    navigation.state === 'submitting' &&
    (name === undefined || navigation.formData?.get(name) === value)
  return (
    <button
      type="submit"
      name={name}
      value={value}
      formNoValidate={formNoValidate}
      disabled={pending}
      aria-disabled={pending}
      className={`w-full rounded-md px-4 py-2 text-sm font-semibold shadow-sm disabled:opacity-70 ${BUTTON[variant]}`}
    >
      {pending ? pendingText : children}
    </button>
  )
}

/** A field people never see: bots that fill every input give themselves away (`isHoneypotFilled`). */
export function HoneypotField() {
  const id = `${HONEYPOT_FIELD}-${useId()}`
  return (
    // A class, not a style attribute: the CSP allows no inline styles.
    <div aria-hidden="true" className="absolute -left-[10000px] h-px w-px overflow-hidden">
      <label htmlFor={id}>Leave this field empty</label>
      <input
        id={id}
        name={HONEYPOT_FIELD}
        type="text"
        tabIndex={-1}
        autoComplete="off"
        defaultValue=""
      />
    </div>
  )
}

/** A settings form's last success message and form-level errors, announced to screen readers. */
export function FormReplyMessages({
  message,
  form,
}: {
  message: string | null
  form: { errorId: string; errors?: string[] }
}) {
  return (
    <>
      <FormMessage tone="success">{message}</FormMessage>
      <FormMessage tone="error" id={form.errorId}>
        {form.errors?.join(' ')}
      </FormMessage>
    </>
  )
}

export const NEW_PASSWORD_HINT = `At least ${PASSWORD_MIN_LENGTH} characters.`

export function NewPasswordFields({
  password,
  confirmPassword,
}: {
  password: FieldMetadata<string | undefined>
  confirmPassword: FieldMetadata<string | undefined>
}) {
  return (
    <>
      <TextField
        label="New password"
        field={password}
        type="password"
        autoComplete="new-password"
        hint={NEW_PASSWORD_HINT}
      />
      <TextField
        label="Repeat new password"
        field={confirmPassword}
        type="password"
        autoComplete="new-password"
      />
    </>
  )
}
