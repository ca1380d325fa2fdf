import type { SubmissionResult } from '@conform-to/react'

/**
 * What a settings action answers: which of the page's forms was submitted, conform's
 * result for it, and a success message. Each form takes `lastResult` only when the
 * intent is its own, so errors land next to the right fields.
 */
export interface FormReply<Intent extends string = string> {
  intent: Intent
  result: SubmissionResult<string[]>
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

/** The success message for one form of a page, or null. */
export function messageFor<Intent extends string>(
  reply: FormReply<Intent> | undefined,
  intent: Intent,
) {
  return reply?.intent === intent ? reply.message : null
}
