import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

import { expect, test } from 'vitest'

import { PROVIDER_SETTINGS } from '../../app/billing/provider-settings'

// A provider is named only in its folder, the registries and the contract's routes; each other
// file that names one is listed here with the reason (docs/architecture.md, "Billing providers").
const IDS = PROVIDER_SETTINGS.map(({ id }) => id)
const PROVIDER_FOLDERS = new RegExp(`^app/billing/(${IDS.join('|')})/`)
const EXCEPTIONS: Record<string, string> = {
  'app/billing/registry.server.ts': 'the registry of adapters: one line per provider',
  'app/billing/provider-settings.ts': 'the registry of settings: one line per provider',
  'app/routes/api.checkout_sessions.ts': "the contract's provider A checkout",
  'app/routes/api.customer_portal.ts': "the contract's provider A portal",
  'app/routes/api.webhooks.providera.ts': "the contract's path of provider A's webhook",
  'app/routes/api.checkout.ts': "the contract's provider B checkout",
  'app/routes/api.portal.ts': "the contract's provider B portal",
  'app/routes/api.webhooks.providerb.ts': "the contract's path of provider B's webhook",
  'app/billing/catalog.json': "the plan catalogue holds each plan's ids at each provider",
}

/** A registered provider's name as a word or a name's first part (`stripe_`, `polarProduct`). */
const spellings = IDS.flatMap((id) => [
  `[${id[0]}${id[0].toUpperCase()}]${id.slice(1)}`,
  id.toUpperCase(),
])
const NAMES = new RegExp(`(?<![A-Za-z])(?:${spellings.join('|')})(?![a-z])`)

const appSources = execFileSync('git', ['ls-files', 'app'], { encoding: 'utf8' })
  .split('\n')
  .filter((path) => path && !/\.test\.|test-support/.test(path))

test('no app source file outside a provider folder, the registries and the route files names a provider', () => {
  const naming = appSources.filter(
    (path) => !PROVIDER_FOLDERS.test(path) && NAMES.test(readFileSync(path, 'utf8')),
  )
  expect(naming.filter((path) => !(path in EXCEPTIONS))).toEqual([])
})

test('every exception is a file that still names a provider (the list does not rot)', () => {
  for (const path of Object.keys(EXCEPTIONS))
    expect(NAMES.test(readFileSync(path, 'utf8')), path).toBe(true)
})
