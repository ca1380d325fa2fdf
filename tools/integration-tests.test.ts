import { existsSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { ROUTES_REACHED } from '../tests/integration/routes-reached'
import { PROJECT_ROOT } from '../tests/local-stack/database'
import { appImportGraph, integrationTestsFor, routeIdOf } from './integration-tests'

const graph = appImportGraph()

describe('the integration tests of what changed', () => {
  it('after touching the Stripe webhook module, include its integration tests', () => {
    const tests = integrationTestsFor(['app/billing/stripe/webhook.server.ts'], graph)
    expect(tests).toContain('tests/integration/stripe-webhook.test.ts')
    const contact = integrationTestsFor(['app/contact/schema.ts'], graph)
    expect(contact).not.toContain('tests/integration/stripe-webhook.test.ts')
  })

  it('follow the imports up to every route: the session module reaches the pages', () => {
    const tests = integrationTestsFor(['app/auth/session.server.ts'], graph)
    expect(tests).toContain('tests/integration/payment-recovery.test.ts')
    expect(tests).toContain('tests/integration/request-policy.test.ts')
    expect(integrationTestsFor(['README.md', 'tools/run.ts'], graph)).toEqual([])
  })

  it('name only test files and routes that exist', () => {
    const routes = new Set(Object.keys(graph).map(routeIdOf))
    for (const [file, reached] of Object.entries(ROUTES_REACHED)) {
      expect(existsSync(path.join(PROJECT_ROOT, file)), file).toBe(true)
      for (const id of reached) expect(routes.has(id), `${file}: ${id}`).toBe(true)
    }
  })
})
