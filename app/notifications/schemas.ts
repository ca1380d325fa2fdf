import * as z from 'zod/mini'

// An unchecked checkbox is absent from the form, so "absent" means false.
const checkbox = z.pipe(
  z.optional(z.string()),
  z.transform((value) => value === 'on'),
)

export const NotificationPreferencesSchema = z.object({
  productUpdates: checkbox,
  billing: checkbox,
  security: checkbox,
})

export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>
export type NotificationPreferencesInput = z.input<typeof NotificationPreferencesSchema>
