// `npm test` step: no server secret in the browser bundle: the build's scan for this
// environment's secrets, a build with fake ones scanned for them (inlined at build time), and
// the fakes planted in a copy that the scan must find (the check can fail).
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

async function scan(label: string, dir: string, secrets: Record<SecretName, string>) {
  const { findings, filesScanned } = await findSecrets(dir, secrets)
  if (findings.length === 0)
    return console.log(`  ok    ${label}: ${filesScanned} files, no secret`)
  failed = true
  console.log(`  FAIL  ${label}:`)
  for (const finding of findings) console.log(`          ${finding.secret} in ${finding.file}`)
}

const configured = Object.fromEntries(
  SECRET_NAMES.map((name) => [name, process.env[name] || LOCAL_DEFAULTS[name]]),
) as Record<SecretName, string>
const label = `${path.relative(PROJECT_ROOT, buildDir)}/client, configured secrets`
await scan(label, path.join(buildDir, 'client'), configured)

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
  await scan('build with distinctive fake secrets', client, fakes)

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
