import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'

import { NOTIFICATION_KINDS, PREFERENCE_COLUMNS } from './kinds'
import { NotificationPreferencesSchema } from './schemas'

describe('NotificationPreferencesSchema', () => {
  it('reads checked boxes as true and absent ones as false', () => {
    const data = new FormData()
    data.append('billing', 'on')
    const result = parseWithZod(data, { schema: NotificationPreferencesSchema })
    expect(result.status === 'success' && result.value).toEqual({
      productUpdates: false,
      billing: true,
      security: false,
    })
  })

  it('every kind has a user_profiles column', () => {
    expect(NOTIFICATION_KINDS.map((kind) => PREFERENCE_COLUMNS[kind])).toEqual([
      'notify_product_updates',
      'notify_billing',
      'notify_security',
    ])
  })
})
