import { defineProject } from 'vitest/config'

// The local stack's own tests (`*.test.ts` beside each part), a project of the root's vitest
// configuration and runnable alone from this folder: `npx vitest run`.
export default defineProject({
  test: {
    name: 'local-stack',
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**'],
    globalSetup: ['testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
})
