import { describe, expect, it } from 'vitest'

import { interpretAudit } from './audit-report'

// Samples in the shapes npm 11 prints for `npm audit --omit=dev --audit-level=high --json`
// (audit report version 2, from @npmcli/arborist's AuditReport.toJSON; the error objects from
// npm's lib/utils/audit-error.js plus the exit handler's `error` field).

const PRODUCTION_DEPENDENCIES = { prod: 171, dev: 493, optional: 48, peer: 0, peerOptional: 0 }

const withAdvisories = {
  auditReportVersion: 2,
  vulnerabilities: {
    '@remix-run/serve': {
      name: '@remix-run/serve',
      severity: 'high',
      isDirect: true,
      via: ['express'],
      effects: [],
      range: '<=2.15.2',
      nodes: ['node_modules/@remix-run/serve'],
      fixAvailable: { name: '@remix-run/serve', version: '2.17.5', isSemVerMajor: false },
    },
    cookie: {
      name: 'cookie',
      severity: 'low',
      isDirect: false,
      via: [
        {
          source: 1103907,
          name: 'cookie',
          dependency: 'cookie',
          title: 'cookie accepts cookie name, path, and domain with out of bounds characters',
          url: 'https://github.com/advisories/GHSA-pxg6-pf52-xh8x',
          severity: 'low',
          cwe: ['CWE-74'],
          cvss: { score: 0, vectorString: null },
          range: '<0.7.0',
        },
      ],
      effects: ['express'],
      range: '<0.7.0',
      nodes: ['node_modules/cookie'],
      fixAvailable: true,
    },
    express: {
      name: 'express',
      severity: 'high',
      isDirect: false,
      via: ['cookie', 'path-to-regexp'],
      effects: ['@remix-run/serve'],
      range: '<=4.21.1 || 5.0.0-alpha.1 - 5.0.0',
      nodes: ['node_modules/express'],
      fixAvailable: true,
    },
    'form-data': {
      name: 'form-data',
      severity: 'critical',
      isDirect: false,
      via: [
        {
          source: 1106509,
          name: 'form-data',
          dependency: 'form-data',
          title: 'form-data uses unsafe random function in form-data for choosing boundary',
          url: 'https://github.com/advisories/GHSA-fjxv-7rqg-78g4',
          severity: 'critical',
          cwe: ['CWE-330'],
          cvss: { score: 0, vectorString: null },
          range: '>=4.0.0 <4.0.4',
        },
      ],
      effects: [],
      range: '4.0.0 - 4.0.3',
      nodes: ['node_modules/form-data'],
      fixAvailable: true,
    },
    'path-to-regexp': {
      name: 'path-to-regexp',
      severity: 'high',
      isDirect: false,
      via: [
        {
          source: 1101844,
          name: 'path-to-regexp',
          dependency: 'path-to-regexp',
          title: 'path-to-regexp outputs backtracking regular expressions',
          url: 'https://github.com/advisories/GHSA-9wv6-86v2-598j',
          severity: 'high',
          cwe: ['CWE-1333'],
          cvss: {
            score: 7.5,
            vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H',
          },
          range: '<0.1.10',
        },
      ],
      effects: ['express'],
      range: '<0.1.10',
      nodes: ['node_modules/path-to-regexp'],
      fixAvailable: true,
    },
  },
  metadata: {
    vulnerabilities: { info: 0, low: 1, moderate: 0, high: 3, critical: 1, total: 5 },
    dependencies: { ...PRODUCTION_DEPENDENCIES, total: 663 },
  },
}

const moderateOnly = {
  auditReportVersion: 2,
  vulnerabilities: {
    postcss: {
      name: 'postcss',
      severity: 'moderate',
      isDirect: false,
      via: [
        {
          source: 1094544,
          name: 'postcss',
          dependency: 'postcss',
          title: 'PostCSS line return parsing error',
          url: 'https://github.com/advisories/GHSA-7fh5-64p2-3v2j',
          severity: 'moderate',
          cwe: ['CWE-74', 'CWE-144'],
          cvss: {
            score: 5.3,
            vectorString: 'CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:L/A:N',
          },
          range: '<8.4.31',
        },
      ],
      effects: [],
      range: '<8.4.31',
      nodes: ['node_modules/postcss'],
      fixAvailable: true,
    },
  },
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 1, high: 0, critical: 0, total: 1 },
    dependencies: { ...PRODUCTION_DEPENDENCIES, total: 663 },
  },
}

const clean = {
  auditReportVersion: 2,
  vulnerabilities: {},
  metadata: {
    vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0 },
    dependencies: { ...PRODUCTION_DEPENDENCIES, total: 663 },
  },
}

/** What this project's registry answers (npm 11.19.1, November 2026). */
const methodNotAllowed = {
  message:
    '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  method: 'POST',
  uri: 'https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
  headers: {
    allow: ['GET,HEAD'],
    date: ['Sun, 22 Nov 2026 08:03:18 GMT'],
    'content-length': ['0'],
    'x-fetch-attempts': ['1'],
  },
  statusCode: 405,
  body: '',
  error: { summary: '', detail: '' },
}

const json = (value: unknown) => JSON.stringify(value, null, 2)

describe('interpretAudit', () => {
  it('fails on high and critical advisories, listing each once, worst first', () => {
    const verdict = interpretAudit({ stdout: json(withAdvisories), exitCode: 1 })
    expect(verdict).toEqual({
      kind: 'fail',
      advisories: [
        {
          package: 'form-data',
          severity: 'critical',
          title: 'form-data uses unsafe random function in form-data for choosing boundary',
          url: 'https://github.com/advisories/GHSA-fjxv-7rqg-78g4',
          range: '>=4.0.0 <4.0.4',
        },
        {
          package: 'path-to-regexp',
          severity: 'high',
          title: 'path-to-regexp outputs backtracking regular expressions',
          url: 'https://github.com/advisories/GHSA-9wv6-86v2-598j',
          range: '<0.1.10',
        },
      ],
    })
  })

  it('fails even if npm exited 0 (the JSON decides)', () => {
    expect(interpretAudit({ stdout: json(withAdvisories), exitCode: 0 }).kind).toBe('fail')
  })

  it('still fails and names the package when a high package lists no advisory object', () => {
    const report = structuredClone(withAdvisories)
    report.vulnerabilities['form-data'].severity = 'moderate'
    report.vulnerabilities['form-data'].via[0].severity = 'moderate'
    report.vulnerabilities['path-to-regexp'].via = ['some-dependency'] as never
    const verdict = interpretAudit({ stdout: json(report), exitCode: 1 })
    expect(verdict.kind).toBe('fail')
    if (verdict.kind !== 'fail') return
    expect(verdict.advisories.map((a) => a.package)).toEqual([
      '@remix-run/serve',
      'express',
      'path-to-regexp',
    ])
  })

  it('passes with no vulnerability at all', () => {
    expect(interpretAudit({ stdout: json(clean), exitCode: 0 })).toEqual({
      kind: 'pass',
      counts: { info: 0, low: 0, moderate: 0, high: 0, critical: 0 },
      productionDependencies: 171,
    })
  })

  it('passes with advisories below high, and reports their counts', () => {
    expect(interpretAudit({ stdout: json(moderateOnly), exitCode: 0 })).toEqual({
      kind: 'pass',
      counts: { info: 0, low: 0, moderate: 1, high: 0, critical: 0 },
      productionDependencies: 171,
    })
  })

  it('does not pass a clean report when npm exited non-zero, or when the counts disagree', () => {
    expect(interpretAudit({ stdout: json(clean), exitCode: 1 }).kind).toBe('error')
    const counted = structuredClone(clean)
    counted.metadata.vulnerabilities.high = 1
    expect(interpretAudit({ stdout: json(counted), exitCode: 0 }).kind).toBe('error')
  })

  it('reports a registry without the audit endpoint (HTTP 405) as unavailable', () => {
    expect(interpretAudit({ stdout: json(methodNotAllowed), exitCode: 1 })).toEqual({
      kind: 'unavailable',
      registry: 'https://registry.npmjs.org/',
      reason: "does not serve npm's audit endpoint (HTTP 405)",
    })
    const mirror = {
      ...methodNotAllowed,
      uri: 'https://npm.example.com/repository/npm-proxy/-/npm/v1/security/advisories/bulk',
    }
    expect(interpretAudit({ stdout: json(mirror), exitCode: 1 })).toMatchObject({
      kind: 'unavailable',
      registry: 'https://npm.example.com/repository/npm-proxy/',
    })
  })

  it('reports an unknown or refusing registry host as unavailable', () => {
    const refused = {
      message:
        'request to http://127.0.0.1:9/-/npm/v1/security/advisories/bulk failed, reason: connect ECONNREFUSED 127.0.0.1:9',
      error: { summary: '', detail: '' },
    }
    expect(interpretAudit({ stdout: json(refused), exitCode: 1 })).toEqual({
      kind: 'unavailable',
      registry: 'http://127.0.0.1:9/',
      reason: "cannot be reached for npm's audit endpoint (ECONNREFUSED)",
    })
    const unknownHost = {
      message:
        'request to https://no-such-registry.invalid/-/npm/v1/security/advisories/bulk failed, reason: getaddrinfo ENOTFOUND no-such-registry.invalid',
      error: { summary: '', detail: '' },
    }
    expect(interpretAudit({ stdout: json(unknownHost), exitCode: 1 })).toMatchObject({
      kind: 'unavailable',
      registry: 'https://no-such-registry.invalid/',
    })
  })

  it('fails on every other error: another status, another network error, another URL', () => {
    const serverError = {
      ...methodNotAllowed,
      message:
        '500 Internal Server Error - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
      statusCode: 500,
    }
    const unauthorized = {
      ...methodNotAllowed,
      message: '401 Unauthorized - POST …',
      statusCode: 401,
    }
    const reset = {
      message:
        'request to https://registry.npmjs.org/-/npm/v1/security/advisories/bulk failed, reason: socket hang up (ECONNRESET)',
    }
    const otherUrl = { ...methodNotAllowed, uri: 'https://registry.npmjs.org/-/whoami' }
    for (const output of [serverError, unauthorized, reset, otherUrl]) {
      const verdict = interpretAudit({ stdout: json(output), exitCode: 1 })
      expect(verdict.kind, JSON.stringify(output)).toBe('error')
    }
    expect(interpretAudit({ stdout: json(serverError), exitCode: 1 })).toMatchObject({
      message: expect.stringContaining('HTTP 500'),
    })
  })

  it('fails on npm errors (no lockfile), output that is not JSON, and unknown shapes', () => {
    const noLockfile = {
      error: {
        code: 'ENOLOCK',
        summary: 'This command requires an existing lockfile.',
        detail:
          'Try creating one first with: npm i --package-lock-only\nOriginal error: loadVirtual requires existing shrinkwrap file',
      },
    }
    expect(interpretAudit({ stdout: json(noLockfile), exitCode: 1 })).toEqual({
      kind: 'error',
      message: 'npm audit failed (ENOLOCK): This command requires an existing lockfile.',
    })
    expect(interpretAudit({ stdout: '', exitCode: 1 }).kind).toBe('error')
    expect(interpretAudit({ stdout: 'npm error code E405', exitCode: 1 }).kind).toBe('error')
    expect(interpretAudit({ stdout: '[]', exitCode: 0 }).kind).toBe('error')
    expect(interpretAudit({ stdout: json({ auditReportVersion: 1 }), exitCode: 0 }).kind).toBe(
      'error',
    )
  })
})
