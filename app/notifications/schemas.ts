import { z } from 'zod'

// An unchecked checkbox is absent from the form, so "absent" means false.
const checkbox = z
  .string()
  .optional()
  .transform((value) => value === 'on')

/** The Notifications form: one checkbox per kind. */
export const NotificationPreferencesSchema = z.object({
  productUpdates: checkbox,
  billing: checkbox,
  security: checkbox,
})

export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>
