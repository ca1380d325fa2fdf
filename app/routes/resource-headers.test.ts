import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'
import { isSecuredResource } from '~/lib/security-headers.server'

/**
 * Remix hands a resource route's Response straight back, without `entry.server.tsx`, so
 * its security and cache headers come from `secureResource` around each loader and action.
 * Every resource route module on disk (no default export: no page) is checked here, so a
 * new one without the wrapper fails CI.
 */
const ROUTES_DIR = path.dirname(fileURLToPath(import.meta.url))
const files = readdirSync(ROUTES_DIR)
  .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
  .sort()

const resources: [string, Record<string, unknown>][] = []
for (const file of files) {
  const module = (await import(/* @vite-ignore */ path.join(ROUTES_DIR, file))) as Record<
    string,
    unknown
  >
  if (!module.default) resources.push([file, module])
}

test('there are resource routes to check', () => {
  expect(resources.map(([file]) => file)).toContain('api.webhooks.stripe.ts')
})

test.each(resources)(
  '%s: every loader and action is wrapped by secureResource',
  (_file, module) => {
    for (const name of ['loader', 'action'] as const) {
      if (module[name] !== undefined) expect(isSecuredResource(module[name]), name).toBe(true)
    }
  },
)
