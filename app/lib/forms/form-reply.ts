import type { SubmissionResult } from '@conform-to/react'
import { data } from '@remix-run/react'

import type { FormConstraint } from './schema-constraint'

/** Conform's result for the form that was sent: its errors, and what was typed (unless hidden). */
export type FormResult = SubmissionResult<string[]>

/** What a settings form takes from its page: its own result and message, its schema's constraints. */
export interface SettingsFormProps {
  lastResult?: FormResult
  message: string | null
  constraint: FormConstraint
}

/** An action's answer to a form it does not know (400): it never guesses what was meant. */
export const UNKNOWN_FORM =
  'This page does not know that request, so nothing was done. Please use its buttons.'

/** The one way a form action answers: conform's `result` beside the fields its page reads. */
export function reply<Result extends FormResult | null, const Fields extends object>(
  result: Result,
  fields: Fields,
  init?: ResponseInit,
) {
  return data({ result, ...fields }, init)
}

/** Each form takes `lastResult` only for its own intent, so errors land by the right fields. */
export interface FormReply<Intent extends string = string> {
  intent: Intent
  result: FormResult
  message: string | null
  /** The form must show a code field: the auth server mailed a code it needs (passwords). */
  needsCode?: boolean
  /** The password form offers a reset link by mail (the current-password check is paused). */
  offerResetLink?: boolean
}

/** The conform result for one form of a page, or undefined when another form was sent. */
export function resultFor<Intent extends string>(
  reply: FormReply<Intent> | undefined,
  intent: Intent,
) {
  return reply?.intent === intent ? reply.result : undefined
}

export function messageFor<Intent extends string>(
  reply: FormReply<Intent> | undefined,
  intent: Intent,
) {
  return reply?.intent === intent ? reply.message : null
}
