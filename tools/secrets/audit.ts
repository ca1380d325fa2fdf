// `npm test` step: no high or critical advisory in the production dependencies
// (docs/security.md). A registry without the audit endpoint: skipped (AUDIT_SKIPPED_EXIT_CODE),
// or a failure with AUDIT_REQUIRED=1.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const BLOCKING = ['high', 'critical']
const BULK_ENDPOINT = '/-/npm/v1/security/advisories/bulk'
const UNREACHABLE =
  /^request to (\S+)\/-\/npm\/v1\/security\/advisories\/bulk failed, reason: .*\b(ENOTFOUND|ECONNREFUSED)\b/

type Advisory = { title?: string; url?: string }
interface AuditOutput {
  auditReportVersion?: number
  vulnerabilities?: Record<
    string,
    { severity: string; range?: string; via?: (string | Advisory)[] }
  >
  metadata?: { vulnerabilities?: Record<string, number> }
  message?: string
  uri?: string
  statusCode?: number
  error?: { code?: string; summary?: string }
}

type Verdict =
  | { kind: 'pass' | 'unavailable' | 'error'; detail: string }
  | { kind: 'fail'; advisories: string[] }

/**
 * The verdict on what `npm audit --json` printed: its report (version 2), or the failed
 * request (`{message, uri, statusCode}`, only `message` without an answer; `{error}`).
 */
export function readAudit(stdout: string, exitCode: number | null): Verdict {
  let output: AuditOutput
  try {
    output = JSON.parse(stdout) as AuditOutput
  } catch {
    return { kind: 'error', detail: `npm audit did not print JSON (exit ${exitCode})` }
  }
  if (output?.auditReportVersion === 2 && output.vulnerabilities) {
    const advisories = Object.entries(output.vulnerabilities)
      .filter(([, entry]) => BLOCKING.includes(entry.severity))
      .map(([name, entry]) => {
        // `via`: the advisories against this package, or the names of the vulnerable
        // packages it depends on (listed under their own names).
        const via = (entry.via ?? []).map((item) =>
          typeof item === 'string' ? `through ${item}` : `${item.title} ${item.url}`,
        )
        return `${entry.severity} ${name} (${entry.range}): ${via.join('; ')}`
      })
    const counts = output.metadata?.vulnerabilities ?? {}
    if (advisories.length > 0) return { kind: 'fail', advisories }
    if (exitCode !== 0 || (counts.high ?? 0) + (counts.critical ?? 0) > 0)
      return {
        kind: 'error',
        detail: `npm audit exited ${exitCode}, counts ${JSON.stringify(counts)}`,
      }
    return { kind: 'pass', detail: `below high: ${JSON.stringify(counts)}` }
  }
  if (output?.statusCode === 405 && output.uri?.endsWith(BULK_ENDPOINT))
    return { kind: 'unavailable', detail: `${output.uri} answers HTTP 405` }
  const unreachable = UNREACHABLE.exec(output?.message ?? '')
  if (unreachable && output.statusCode === undefined)
    return {
      kind: 'unavailable',
      detail: `${unreachable[1]} cannot be reached (${unreachable[2]})`,
    }
  const status = output?.statusCode ? ` (HTTP ${output.statusCode})` : ''
  const message = output?.message ?? `${output?.error?.code}: ${output?.error?.summary}`
  return { kind: 'error', detail: `npm audit failed${status}: ${message}` }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Not the workspaces: the local stack (tests/local-stack) is development tooling.
  const args = ['audit', '--omit=dev', '--workspaces=false', '--audit-level=high', '--json']
  const run = spawnSync('npm', args, { encoding: 'utf8', timeout: 180_000, maxBuffer: 2 ** 26 })
  const verdict = readAudit(run.stdout ?? '', run.status)
  const required = process.env.AUDIT_REQUIRED === '1'
  if (verdict.kind === 'fail') {
    console.log('  FAIL  high or critical advisories in production dependencies:')
    for (const line of verdict.advisories) console.log(`          ${line}`)
    console.log(
      '        Update the dependency (`npm audit fix --dry-run` shows what would change).',
    )
  } else if (verdict.kind === 'unavailable') {
    console.log(
      `  ${required ? 'FAIL (AUDIT_REQUIRED=1)' : 'SKIPPED: no audit ran'}: ${verdict.detail}`,
    )
  } else {
    console.log(`  ${verdict.kind === 'pass' ? 'ok  ' : 'FAIL'}  npm audit: ${verdict.detail}`)
    if (verdict.kind === 'error') console.log(run.stderr)
  }
  const skipped = Number(process.env.AUDIT_SKIPPED_EXIT_CODE ?? 0)
  process.exit(
    verdict.kind === 'pass' ? 0 : verdict.kind === 'unavailable' && !required ? skipped : 1,
  )
}
