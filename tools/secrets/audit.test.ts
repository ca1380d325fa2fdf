import { describe, expect, it } from 'vitest'

import { readAudit } from './audit'

// In the shapes npm 11 prints for `npm audit --omit=dev --json`: the report (version 2) or
// the failed request (npm's lib/utils/audit-error.js).
const BULK = '/-/npm/v1/security/advisories/bulk'
const report = (vulnerabilities: object, counts: object) =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: counts } })
const advisory = (name: string, severity: string, via: unknown[]) => ({
  [name]: { name, severity, range: '<1.0.0', via },
})
const withAdvisories = report(
  {
    ...advisory('express', 'high', ['path-to-regexp']),
    ...advisory('path-to-regexp', 'high', [
      { title: 'backtracking regular expressions', url: 'https://github.com/advisories/GHSA-9wv6' },
    ]),
    ...advisory('cookie', 'low', [{ title: 'out of bounds characters', url: 'https://x' }]),
  },
  { low: 1, high: 2 },
)
const failedRequest = (statusCode: number, uri = `https://registry.npmjs.org${BULK}`) =>
  JSON.stringify({ message: `${statusCode} - POST ${uri}`, method: 'POST', uri, statusCode })
const noAnswer = (reason: string) =>
  JSON.stringify({ message: `request to http://127.0.0.1:9${BULK} failed, reason: ${reason}` })

describe('readAudit', () => {
  it('fails on each high or critical package, naming its advisories', () => {
    expect(readAudit(withAdvisories, 1)).toEqual({
      kind: 'fail',
      advisories: [
        'high express (<1.0.0): through path-to-regexp',
        'high path-to-regexp (<1.0.0): backtracking regular expressions https://github.com/advisories/GHSA-9wv6',
      ],
    })
    expect(readAudit(withAdvisories, 0).kind).toBe('fail')
  })

  it.each([
    ['nothing found', report({}, { high: 0, critical: 0 }), 0, 'pass'],
    ['below high', report(advisory('postcss', 'moderate', []), { moderate: 1 }), 0, 'pass'],
    ['a clean report but npm failed', report({}, {}), 1, 'error'],
    ['counts that name an unlisted high', report({}, { high: 1 }), 0, 'error'],
    ['a registry without the audit endpoint (405)', failedRequest(405), 1, 'unavailable'],
    ['a refusing registry host', noAnswer('connect ECONNREFUSED 127.0.0.1:9'), 1, 'unavailable'],
    ['an unknown registry host', noAnswer('getaddrinfo ENOTFOUND no.invalid'), 1, 'unavailable'],
    ['another status', failedRequest(500), 1, 'error'],
    ['a 405 of another URL', failedRequest(405, 'https://registry.npmjs.org/-/whoami'), 1, 'error'],
    ['another network error', noAnswer('socket hang up (ECONNRESET)'), 1, 'error'],
    [
      'an npm error',
      JSON.stringify({ error: { code: 'ENOLOCK', summary: 'no lockfile' } }),
      1,
      'error',
    ],
    ['output that is not JSON', 'npm error code E405', 1, 'error'],
    ['JSON of another shape', '[]', 0, 'error'],
  ])('%s', (_name, stdout, exitCode, kind) => {
    expect(readAudit(stdout, exitCode).kind).toBe(kind)
  })
})
