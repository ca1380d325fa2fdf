// docs/going-live.md is followed literally by someone deploying for the first time (its
// commands run end to end in tests/e2e/rehearsal.spec.ts).
import { readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { PLAN_DEFINITIONS, planIdSettings } from '../../app/billing/plans'
import { PROJECT_ROOT } from '../local-stack/database'

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8')
const guide = read('docs/going-live.md')
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts

/** npm's own commands that run no script of ours. */
const NPM_BUILTINS = new Set(['install', 'ci'])

// Where the code reads its settings, and each plan's id settings (read by name from the catalogue).
const CODE = [
  'server.js',
  'app/env.server.ts',
  'app/billing/stripe/settings.ts',
  'app/billing/polar/settings.ts',
  'tools/dev.ts',
  'tools/dev-plan.ts',
  'vite.config.ts',
  'supabase/config.toml',
]
  .map(read)
  .concat(Object.keys(planIdSettings(PLAN_DEFINITIONS)))
  .join('\n')

describe('docs/going-live.md', () => {
  it('names only npm commands that exist', () => {
    const commands = [...guide.matchAll(/\bnpm (run [\w:-]+|[a-z]+)/g)].map((match) => match[1])
    expect(commands).toContain('start')
    expect(commands).toContain('run build')
    expect(commands).toContain('run stripe:sync-products')
    for (const command of commands) {
      if (NPM_BUILTINS.has(command)) continue
      const script = command.startsWith('run ') ? command.slice(4) : command
      expect(scripts, `npm ${command}`).toHaveProperty([script])
    }
  })

  it('names only settings the code reads', () => {
    const settings = new Set(
      [...guide.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?:=[^`]*)?`/g)]
        .map((m) => m[1])
        // The auth server's own settings (a self-hosted Supabase Auth's), not the app's.
        .filter((name) => !name.startsWith('GOTRUE_')),
    )
    expect(settings.size).toBeGreaterThan(10)
    for (const name of settings) expect(CODE, name).toContain(name)
  })

  it('runs the deployment’s commands from the build, so a production install (no tsx) has them', () => {
    expect(scripts.build).toContain('tools/build-commands.ts')
    for (const name of ['stripe:sync-products', 'billing:reconcile'])
      expect(scripts[name], name).toMatch(/^node build\/commands\/[\w-]+\.js$/)
  })

  it('never has the local project’s supabase/config.toml pushed to a hosted one', () => {
    // It holds localhost URLs, a small mail budget and GitHub's development secrets.
    expect(guide).not.toMatch(/supabase config push/)
  })

  it('starts the server as deployed: npm start, with no NODE_ENV to set', () => {
    expect(scripts.start).toBe('node server.js')
    expect(read('server.js')).toContain("process.env.NODE_ENV = 'production'")
    expect(guide).not.toMatch(/NODE_ENV=production npm start/)
  })
})
