import { expect, it } from 'vitest'

import { MAX_RECHECKS, nextRecheck } from './success-recheck'

// A pending or confirming page reloads, counting attempts and keeping the checkout id; it stops
// after the last attempt, ignores a garbage attempt count and never reloads a final state.
it.each([
  ['?session_id=cs_1', 'confirming', '/success?session_id=cs_1&attempt=1'],
  ['?checkout_id=abc&attempt=3', 'open', '/success?checkout_id=abc&attempt=4'],
  [`?session_id=cs_1&attempt=${MAX_RECHECKS}`, 'confirming', null],
  ['?session_id=cs_1&attempt=x', 'open', '/success?session_id=cs_1&attempt=1'],
  ['?session_id=cs_1', 'complete', null],
  ['?session_id=cs_1', 'failed', null],
  ['?session_id=cs_1', 'missing', null],
] as const)('nextRecheck of /success%s while %s → %s', (query, status, next) => {
  expect(nextRecheck(new URL(`https://example.com/success${query}`), status)).toBe(next)
})
