/**
 * Reads what `npm audit --omit=dev --audit-level=high --json` printed (npm 11: audit report
 * version 2 on success, the audit endpoint's error otherwise) and decides the `npm test`
 * step. Pure: no process, no network; `audit.ts` runs npm and acts on the verdict.
 */

export const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'] as const
export type Severity = (typeof SEVERITIES)[number]

/** Severities that fail the step. */
const BLOCKING: ReadonlySet<string> = new Set(['high', 'critical'])

/** The path npm 11 POSTs the dependency list to (`@npmcli/arborist`'s audit report). */
const BULK_ENDPOINT = '/-/npm/v1/security/advisories/bulk'

/** One high or critical advisory in a production dependency. */
export interface BlockingAdvisory {
  package: string
  severity: Severity
  title: string
  url: string | null
  /** The vulnerable versions, as the advisory states them. */
  range: string | null
}

export type AuditVerdict =
  /** The report lists no high or critical advisory. */
  | {
      kind: 'pass'
      counts: Record<Severity, number>
      productionDependencies: number | null
    }
  /** At least one high or critical advisory: the step fails. */
  | { kind: 'fail'; advisories: BlockingAdvisory[] }
  /**
   * The registry cannot answer the audit endpoint: it refuses the bulk POST with 405, or
   * its host cannot be resolved or refuses the connection. Nothing was audited.
   */
  | { kind: 'unavailable'; registry: string; reason: string }
  /** Anything else (another HTTP status, a timeout, no lockfile, output we cannot read). */
  | { kind: 'error'; message: string }

export interface AuditRun {
  stdout: string
  /** npm's exit code; null when it did not exit on its own. */
  exitCode: number | null
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const asString = (value: unknown) => (typeof value === 'string' ? value : null)

const isSeverity = (value: unknown): value is Severity =>
  typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value)

/** The verdict for one run of `npm audit --omit=dev --audit-level=high --json`. */
export function interpretAudit(run: AuditRun): AuditVerdict {
  let output: unknown
  try {
    output = JSON.parse(run.stdout)
  } catch {
    const start = run.stdout.trim().slice(0, 300)
    return {
      kind: 'error',
      message: `npm audit did not print JSON (exit code ${run.exitCode})${start ? `: ${start}` : ''}`,
    }
  }
  if (!isObject(output))
    return { kind: 'error', message: 'npm audit printed JSON that is not an object' }
  if (output.auditReportVersion === 2 && isObject(output.vulnerabilities)) {
    return readReport(output, run.exitCode)
  }
  return readError(output)
}

/** Audit report version 2: `vulnerabilities` by package name, `metadata` counts. */
function readReport(report: Json, exitCode: number | null): AuditVerdict {
  const vulnerabilities = report.vulnerabilities as Json
  const advisories: BlockingAdvisory[] = []
  const seen = new Set<string>()
  const blockingPackages: string[] = []
  for (const [name, entry] of Object.entries(vulnerabilities)) {
    if (!isObject(entry)) {
      return { kind: 'error', message: `npm audit report: entry "${name}" is not an object` }
    }
    if (!isSeverity(entry.severity)) {
      return {
        kind: 'error',
        message: `npm audit report: "${name}" has an unknown severity ${JSON.stringify(entry.severity)}`,
      }
    }
    if (BLOCKING.has(entry.severity)) blockingPackages.push(name)
    // `via` holds the advisories against this package (objects) and the names of the
    // vulnerable packages it depends on (strings; their advisories are under their own name).
    const via = Array.isArray(entry.via) ? entry.via : []
    for (const advisory of via) {
      if (!isObject(advisory) || !isSeverity(advisory.severity) || !BLOCKING.has(advisory.severity))
        continue
      const item: BlockingAdvisory = {
        package: asString(advisory.name) ?? name,
        severity: advisory.severity,
        title: asString(advisory.title) ?? '(no title)',
        url: asString(advisory.url),
        range: asString(advisory.range),
      }
      const key = `${item.package}\n${item.url ?? item.title}`
      if (seen.has(key)) continue
      seen.add(key)
      advisories.push(item)
    }
  }

  const counts = Object.fromEntries(SEVERITIES.map((severity) => [severity, 0])) as Record<
    Severity,
    number
  >
  const metadata = isObject(report.metadata) ? report.metadata : {}
  const metaCounts = isObject(metadata.vulnerabilities) ? metadata.vulnerabilities : {}
  for (const severity of SEVERITIES) {
    const count = metaCounts[severity]
    if (typeof count === 'number') counts[severity] = count
  }

  if (advisories.length > 0 || blockingPackages.length > 0) {
    // A package can be high only through an advisory listed somewhere in the report; if the
    // report is inconsistent, still fail and name the packages.
    if (advisories.length === 0) {
      for (const name of blockingPackages) {
        const entry = vulnerabilities[name] as Json
        advisories.push({
          package: name,
          severity: entry.severity as Severity,
          title: '(no advisory listed in the report)',
          url: null,
          range: asString(entry.range),
        })
      }
    }
    advisories.sort(
      (a, b) =>
        SEVERITIES.indexOf(b.severity) - SEVERITIES.indexOf(a.severity) ||
        a.package.localeCompare(b.package),
    )
    return { kind: 'fail', advisories }
  }
  if (counts.high + counts.critical > 0) {
    return {
      kind: 'error',
      message: `npm audit report: metadata counts ${counts.high} high and ${counts.critical} critical, but no such package is listed`,
    }
  }
  if (exitCode !== 0) {
    return {
      kind: 'error',
      message: `npm audit exited with ${exitCode} although its report lists no high or critical advisory`,
    }
  }
  const dependencies = isObject(metadata.dependencies) ? metadata.dependencies : {}
  return {
    kind: 'pass',
    counts,
    productionDependencies: typeof dependencies.prod === 'number' ? dependencies.prod : null,
  }
}

/**
 * npm's output when the audit request failed. `npm audit --json` prints the failed request
 * (`{message, method, uri, headers, statusCode, body}`, from npm's `audit-error.js`) and
 * exits 1 with "audit endpoint returned an error"; a request that never got an answer
 * leaves only `message` ("request to <url> failed, reason: …"). Other npm errors print
 * `{error: {code, summary, detail}}`.
 */
function readError(output: Json): AuditVerdict {
  const message = asString(output.message)
  const uri = asString(output.uri)
  if (
    output.statusCode === 405 &&
    output.method === 'POST' &&
    uri !== null &&
    uri.endsWith(BULK_ENDPOINT)
  ) {
    return {
      kind: 'unavailable',
      registry: `${uri.slice(0, -BULK_ENDPOINT.length)}/`,
      reason: "does not serve npm's audit endpoint (HTTP 405)",
    }
  }
  if (message !== null && output.statusCode === undefined) {
    const unreachable = new RegExp(
      `^request to (\\S+)${BULK_ENDPOINT.replace(/[/.-]/g, '\\$&')} failed, reason: .*\\b(ENOTFOUND|ECONNREFUSED)\\b`,
    ).exec(message)
    if (unreachable) {
      const [, registry, code] = unreachable
      return {
        kind: 'unavailable',
        registry: `${registry}/`,
        reason: `cannot be reached for npm's audit endpoint (${code})`,
      }
    }
  }
  if (message !== null) {
    const status = typeof output.statusCode === 'number' ? ` (HTTP ${output.statusCode})` : ''
    return { kind: 'error', message: `the audit request failed${status}: ${message}` }
  }
  if (isObject(output.error)) {
    const code = asString(output.error.code)
    const summary = asString(output.error.summary) || asString(output.error.detail) || ''
    return {
      kind: 'error',
      message: `npm audit failed${code ? ` (${code})` : ''}${summary ? `: ${summary}` : ''}`,
    }
  }
  return { kind: 'error', message: 'npm audit printed JSON of an unknown shape' }
}
