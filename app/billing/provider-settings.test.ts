import { randomUUID } from 'node:crypto'

import { expect, it, vi } from 'vitest'
import { z } from 'zod'

import { parseEnv } from '~/env.server'
import { PRODUCTION_ENV } from '~/env.test-support'

// A provider just added to the code: its settings registered, its plan ids made up here.
vi.mock('./provider-settings', async (original) => {
  const real = await original<typeof import('./provider-settings')>()
  const added = {
    id: 'newpay',
    schema: { NEWPAY_KEY: z.string() },
    localDefaults: {},
    localKeys: [],
    apiUrl: { name: 'NEWPAY_API_URL', realService: 'its servers' },
    planIds: {
      prefix: 'NEWPAY_PLAN_',
      catalog: z
        .object({})
        .default({})
        .transform(() => ({ planId: randomUUID() })),
      id: 'planId',
    },
  }
  return { ...real, PROVIDER_SETTINGS: [...real.PROVIDER_SETTINGS, added] }
})

it('runs the default providers without BILLING_PROVIDERS: one added is off, needing no settings', () => {
  expect(parseEnv(PRODUCTION_ENV).BILLING_PROVIDERS).toEqual(['stripe', 'polar'])
})
