import { z } from 'zod'

import {
  optionalNumber,
  optionalString,
  optionalTrueOrFalse,
  optionalUrl,
  type ProviderSettings,
} from '~/lib/server/setting-types'

/** Polar's variables (.env.example, docs/going-live.md "Polar"). */
export const polarSettings = {
  id: 'polar',
  schema: {
    POLAR_ACCESS_TOKEN: z.string().min(10, 'must be a Polar organization access token'),
    POLAR_WEBHOOK_SECRET: z.string().min(10, 'must be the Polar webhook secret'),
    POLAR_WEBHOOK_SECRET_PREVIOUS: optionalString.pipe(z.string().min(10).optional()),
    // Which Polar server each call uses follows from it (client.server.ts, `polarServer`).
    POLAR_SANDBOX: optionalTrueOrFalse,
    POLAR_API_URL: optionalUrl,
    POLAR_TIMEOUT_SECONDS: optionalNumber(0.1, 120, 10),
  },
  localDefaults: {
    POLAR_ACCESS_TOKEN: 'polar_oat_local_emulator',
    POLAR_WEBHOOK_SECRET: 'polar_whs_local_emulator_secret',
    POLAR_SANDBOX: 'true',
    POLAR_API_URL: 'http://localhost:12112',
  },
  localKeys: ['POLAR_ACCESS_TOKEN', 'POLAR_WEBHOOK_SECRET'],
  apiUrl: { name: 'POLAR_API_URL', realService: "Polar's own servers" },
  planIds: {
    prefix: 'POLAR_PRODUCT_',
    catalog: z.strictObject({
      productId: z.string().trim().pipe(z.guid('must be a Polar product id (a UUID)')),
    }),
    id: 'productId',
  },
} as const satisfies ProviderSettings
