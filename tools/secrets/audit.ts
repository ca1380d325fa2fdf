/**
 * `npm test` step: no high or critical advisory in the production dependencies.
 *
 * Runs `npm audit --omit=dev --workspaces=false --audit-level=high --json` and reads its report
 * (`audit-report.ts`):
 * - a high or critical advisory: lists package, severity, title and URL of each; exit 1;
 * - none: exit 0;
 * - the registry cannot answer the audit endpoint (it refuses the request with HTTP 405, or
 *   its host is unknown or refuses the connection): prints SKIPPED and exits 0, or exits 1
 *   when `AUDIT_REQUIRED=1` (set it where the registry supports audit, e.g. registry.npmjs.org);
 * - any other failure (another HTTP status, a timeout, no lockfile, unreadable output): exit 1.
 *
 * `AUDIT_SKIPPED_EXIT_CODE` (set by tools/run.ts) replaces the 0 of the SKIPPED case, so the
 * summary of `npm test` can say "skipped" rather than "passed".
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import { interpretAudit, SEVERITIES } from './audit-report'

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url))
// Not the workspaces: the local stack (tests/local-stack) is development tooling.
const ARGS = ['audit', '--omit=dev', '--workspaces=false', '--audit-level=high', '--json']
const required = ['1', 'true'].includes((process.env.AUDIT_REQUIRED ?? '').trim().toLowerCase())
const skippedExitCode = Number(process.env.AUDIT_SKIPPED_EXIT_CODE ?? '0') || 0

// The npm that runs `npm test` (npm sets npm_execpath), else the one on PATH.
const npmCli = process.env.npm_execpath
const [command, args] =
  npmCli && /npm-cli\.[cm]?js$/.test(npmCli)
    ? [process.execPath, [npmCli, ...ARGS]]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', ARGS]

console.log(`  npm ${ARGS.join(' ')}`)
const run = spawnSync(command, args, {
  cwd: PROJECT_ROOT,
  encoding: 'utf8',
  timeout: 180_000,
  maxBuffer: 64 * 1024 * 1024,
  shell: process.platform === 'win32' && command === 'npm.cmd',
})
if (run.error) {
  console.log(`  FAIL  npm audit could not be run: ${run.error.message}`)
  process.exit(1)
}

const verdict = interpretAudit({ stdout: run.stdout, exitCode: run.status })

/** npm's own messages (stderr), for a failure we do not recognise. */
function printNpmLog() {
  for (const line of run.stderr.split('\n')) {
    if (line.trim() !== '') console.log(`          ${line}`)
  }
}

/** Prints the verdict; returns the exit code. */
function report(): number {
  switch (verdict.kind) {
    case 'pass': {
      const others = SEVERITIES.filter((severity) => verdict.counts[severity] > 0)
        .map((severity) => `${verdict.counts[severity]} ${severity}`)
        .join(', ')
      const scope =
        verdict.productionDependencies === null
          ? 'production dependencies'
          : `${verdict.productionDependencies} production dependencies`
      console.log(
        `  ok    npm audit: no high or critical advisory in ${scope}${others ? ` (below the bar: ${others})` : ''}`,
      )
      return 0
    }
    case 'fail': {
      const count = verdict.advisories.length
      console.log(
        `  FAIL  npm audit: ${count} high or critical advisor${count === 1 ? 'y' : 'ies'} in production dependencies:`,
      )
      for (const advisory of verdict.advisories) {
        const range = advisory.range ? ` (vulnerable: ${advisory.range})` : ''
        console.log(
          `          ${advisory.severity.padEnd(8)} ${advisory.package}${range}: ${advisory.title}`,
        )
        if (advisory.url) console.log(`                   ${advisory.url}`)
      }
      console.log(
        '        Update the dependency (`npm audit fix --dry-run` shows what would change).',
      )
      return 1
    }
    case 'unavailable': {
      const what = `the registry at ${verdict.registry} ${verdict.reason}`
      if (required) {
        console.log(`  FAIL  npm audit could not run: ${what}, and AUDIT_REQUIRED=1.`)
        return 1
      }
      const bar = '!'.repeat(78)
      console.log(`  ${bar}`)
      console.log(`  SKIPPED: ${what}.`)
      console.log(
        '  No dependency audit ran. Where the registry supports audit, set AUDIT_REQUIRED=1',
      )
      console.log('  so that this case fails instead (docs/security.md, "Dependencies").')
      console.log(`  ${bar}`)
      return skippedExitCode
    }
    case 'error': {
      console.log(`  FAIL  npm audit: ${verdict.message}`)
      printNpmLog()
      return 1
    }
  }
}

process.exit(report())
