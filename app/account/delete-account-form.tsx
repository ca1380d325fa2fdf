import { SubmitButton, TextField } from '~/components/forms'
import { LINK, TextLink } from '~/components/links'
import type { SettingsFormProps } from '~/lib/forms/form-reply'
import { useValidatedForm } from '~/lib/forms/form-validation'
import { formatDate } from '~/lib/pages/format'

import { DELETE_CONFIRMATION } from './limits'
import { OwnerProofForm } from './owner-proof'

export function DeleteAccountForm({
  hasLiveSubscription,
  keepUntil,
  lastResult,
  constraint,
  message,
  hasPassword,
}: {
  hasLiveSubscription: boolean
  /** A live plan not yet set to end: canceling at the period end is offered first. */
  keepUntil: string | null
  hasPassword: boolean
} & SettingsFormProps) {
  const [form, fields] = useValidatedForm({ id: 'delete-account', lastResult, constraint }, () =>
    import('./schemas').then((schemas) => schemas.DeleteAccountSchema),
  )
  return (
    <OwnerProofForm
      form={form}
      proof={fields}
      message={message}
      hasPassword={hasPassword}
      intent="delete-account"
      submit={
        <SubmitButton name="intent" value="delete-account" variant="danger" pendingText="Deleting…">
          Delete account
        </SubmitButton>
      }
    >
      {keepUntil ? (
        <TextLink to="/dashboard/settings/billing?cancel">
          Cancel at period end and keep access until {formatDate(keepUntil)}
        </TextLink>
      ) : null}
      <p className="text-sm text-slate-700">
        This removes your profile, avatar, subscription record and payment history for good (the
        payment provider keeps its own record).{' '}
        <a href="/dashboard/settings/billing/payments.csv" className={LINK} download>
          Download your payment history as CSV
        </a>{' '}
        to keep a copy.
        {hasLiveSubscription
          ? ' Your subscription will be canceled immediately at the payment provider, without a refund for the rest of the period.'
          : null}
      </p>
      <TextField
        label={`Type ${DELETE_CONFIRMATION} to confirm`}
        field={fields.confirm}
        autoComplete="off"
      />
    </OwnerProofForm>
  )
}
