import { describe, expect, it } from 'vitest'

import { maskEmail } from './email-link-state.server'

describe('maskEmail', () => {
  it.each([
    ['ada.lovelace@example.com', 'a•••e@example.com'],
    ['bob@example.com', 'b•••@example.com'],
    ['x@example.com', 'x•••@example.com'],
    ['zoë.müller@example.de', 'z•••r@example.de'],
    ['"odd@name"@example.com', '"•••"@example.com'],
    ['not-an-address', '•••'],
  ])('%s → %s', (email, masked) => {
    expect(maskEmail(email)).toBe(masked)
  })
})
