import * as z from 'zod/mini'

// An unchecked checkbox is absent from the form, so "absent" means false.
const checkbox = z.pipe(
  z.optional(z.string()),
  z.transform((value) => value === 'on'),
)

/** The Notifications form: one checkbox per kind (`zod/mini`, like every form schema). */
export const NotificationPreferencesSchema = z.object({
  productUpdates: checkbox,
  billing: checkbox,
  security: checkbox,
})

export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>
/** The form's fields as posted: `'on'` or absent. */
export type NotificationPreferencesInput = z.input<typeof NotificationPreferencesSchema>
