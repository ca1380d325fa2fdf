import { expect, test } from 'vitest'

import { textCell } from './dashboard.settings.billing_.payments[.]csv'

// OWASP's CSV injection list: a cell starting with any of these may run as a formula.
test.each([
  ['=', '=HYPERLINK("https://evil.example")', `"'=HYPERLINK(""https://evil.example"")"`],
  ['+', '+1+cmd|x', `"'+1+cmd|x"`],
  ['-', '-2+3+cmd|x', `"'-2+3+cmd|x"`],
  ['@', '@SUM(A1)', `"'@SUM(A1)"`],
  ['tab', '\t=1', `"'\t=1"`],
  ['carriage return', '\r=1', `"'\r=1"`],
  ['a letter', 'Pro plan', '"Pro plan"'],
  ['a digit', '2026', '"2026"'],
  ['a quote', '"quoted" = 1', '"""quoted"" = 1"'],
  ['nothing', '', '""'],
])('a cell starting with %s: %j', (_start, value, cell) => {
  expect(textCell(value)).toBe(cell)
})
