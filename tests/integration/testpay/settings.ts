import { z } from 'zod'

import { optionalUrl, type ProviderSettings } from '../../../app/lib/server/setting-types'

/** The test-only provider's variables and plan ids, read as every provider's are. */
export const testpaySettings = {
  id: 'testpay',
  schema: {
    TESTPAY_WEBHOOK_SECRET: z.string().startsWith('tpwh_', 'must start with tpwh_'),
    TESTPAY_API_URL: optionalUrl,
  },
  localDefaults: {
    TESTPAY_WEBHOOK_SECRET: 'tpwh_local_secret',
    TESTPAY_API_URL: 'https://pay.test',
  },
  localKeys: ['TESTPAY_WEBHOOK_SECRET'],
  apiUrl: { name: 'TESTPAY_API_URL', realService: 'https://pay.test' },
  planIds: {
    prefix: 'TESTPAY_PLAN_',
    catalog: z.strictObject({
      planId: z.string().regex(/^tp_plan_[a-z]+$/, 'must be a testpay plan id (tp_plan_…)'),
    }),
    id: 'planId',
  },
} as const satisfies ProviderSettings
