import type { z } from 'zod'

/**
 * One validation issue as POST /api/contact answers it: the spec's seven keys (zod 3's
 * shape); `minimum`, `inclusive` and `exact` are null for an issue without a lower bound.
 */
export interface WireIssue {
  code: string
  minimum: number | null
  type: string | null
  inclusive: boolean | null
  exact: boolean | null
  message: string
  path: Array<string | number>
}

// zod 4 renamed some codes; the wire keeps the zod 3 names the spec was written against.
const legacyCodes: Record<string, string> = { invalid_format: 'invalid_string' }

function valueType(issue: z.core.$ZodIssue): string | null {
  switch (issue.code) {
    case 'too_small':
    case 'too_big':
      return issue.origin
    case 'invalid_type':
      return issue.expected
    case 'invalid_format':
      return 'string'
    default:
      return null
  }
}

export function toWireIssue(issue: z.core.$ZodIssue): WireIssue {
  const lowerBound = issue.code === 'too_small'
  return {
    code: legacyCodes[issue.code] ?? issue.code,
    minimum: lowerBound ? Number(issue.minimum) : null,
    type: valueType(issue),
    inclusive: lowerBound ? (issue.inclusive ?? true) : null,
    exact: lowerBound ? (issue.exact ?? false) : null,
    message: issue.message,
    path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
  }
}

/** The issue for a body that cannot be decoded at all: like a body that is not an object. */
export function unreadableBodyIssue(message: string): WireIssue {
  return toWireIssue({
    code: 'invalid_type',
    expected: 'object',
    input: undefined,
    message,
    path: [],
  })
}
