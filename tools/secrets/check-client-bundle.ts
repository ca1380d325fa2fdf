/**
 * `npm test` step: the browser bundle holds no server secret. It scans the build just made for
 * this environment's secrets; builds again with every secret set to a fake value and scans for
 * those (a secret inlined at build time shows up there); then plants the fakes in a copy of
 * that bundle and must find each (the check can fail). Exit 0 only if all three hold.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { appendFile, cp, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PROJECT_ROOT } from '../../tests/local-stack/database'
import { findSecrets, SECRET_NAMES, type SecretName } from './scan'

const buildDir = path.resolve(PROJECT_ROOT, process.env.BUILD_DIR ?? 'build')
const canaryBuildDir = path.join(PROJECT_ROOT, `.build-secrets-${process.pid}`)
let failed = false

function report(label: string, findings: { file: string; secret: string }[], files: number) {
  if (findings.length === 0) {
    console.log(`  ok    ${label}: ${files} files, no secret`)
    return
  }
  failed = true
  console.log(`  FAIL  ${label}:`)
  for (const finding of findings) console.log(`          ${finding.secret} in ${finding.file}`)
}

// 1. The build under test, with this environment's secrets (or the local defaults).
const configured = Object.fromEntries(
  SECRET_NAMES.map((name) => [name, process.env[name] || LOCAL_DEFAULTS[name]]),
) as Record<SecretName, string>
{
  const { findings, filesScanned } = await findSecrets(path.join(buildDir, 'client'), configured)
  report(
    `${path.relative(PROJECT_ROOT, buildDir)}/client, configured secrets`,
    findings,
    filesScanned,
  )
}

// 2. A build with distinctive fake secrets.
const tag = randomBytes(6).toString('hex')
const fakes: Record<SecretName, string> = {
  SUPABASE_SERVICE_ROLE_KEY: `eyJhbGciOiJIUzI1NiJ9.fake-service-role-${tag}.signature`,
  STRIPE_SECRET_KEY: `sk_test_fake_${tag}`,
  STRIPE_WEBHOOK_SECRET: `whsec_fake_${tag}`,
  POLAR_ACCESS_TOKEN: `polar_oat_fake_${tag}`,
  POLAR_WEBHOOK_SECRET: `polar_whs_fake_${tag}`,
}
const leakEnv = Object.fromEntries(
  Object.entries(fakes).flatMap(([name, value]) => [
    [name, value],
    [`VITE_${name}`, value],
  ]),
)
try {
  const build = spawnSync(path.join(PROJECT_ROOT, 'node_modules/.bin/remix'), ['vite:build'], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...leakEnv, BUILD_DIR: canaryBuildDir },
    encoding: 'utf8',
  })
  if (build.status !== 0) {
    console.log(build.stdout, build.stderr)
    throw new Error('the build with fake secrets failed')
  }
  const client = path.join(canaryBuildDir, 'client')
  const { findings, filesScanned } = await findSecrets(client, fakes)
  report('build with distinctive fake secrets', findings, filesScanned)

  // 3. The scan must catch each planted secret.
  const planted = await mkdtemp(path.join(tmpdir(), 'secrets-check-'))
  try {
    await cp(client, planted, { recursive: true })
    const assets = (await readdir(path.join(planted, 'assets'))).filter((f) => f.endsWith('.js'))
    for (const [index, value] of Object.values(fakes).entries()) {
      const file = path.join(planted, 'assets', assets[index % assets.length])
      await appendFile(file, `\n;console.log(${JSON.stringify(value)})\n`)
    }
    const caught = new Set((await findSecrets(planted, fakes)).findings.map((f) => f.secret))
    const missed = SECRET_NAMES.filter((name) => !caught.has(name))
    if (missed.length > 0) {
      failed = true
      console.log(`  FAIL  self-test: planted secrets not found: ${missed.join(', ')}`)
    } else {
      console.log(`  ok    self-test: all ${SECRET_NAMES.length} planted secrets are caught`)
    }
  } finally {
    await rm(planted, { recursive: true, force: true })
  }
} finally {
  await rm(canaryBuildDir, { recursive: true, force: true })
}

process.exit(failed ? 1 : 0)
