import { describe, expect, it } from 'vitest'

import { asUserId } from './user-id'

describe('asUserId', () => {
  it('accepts a UUID, trimmed and lower-cased', () => {
    expect(asUserId(' 5B0D3F4E-7C1A-4C4E-9F0A-0000000000A1 ')).toBe(
      '5b0d3f4e-7c1a-4c4e-9f0a-0000000000a1',
    )
  })
  it.each([[''], ['user_123'], ['5b0d3f4e-7c1a-4c4e-9f0a'], [42], [null], [undefined], [{}]])(
    'treats %j as no user',
    (value) => {
      expect(asUserId(value)).toBeNull()
    },
  )
})
