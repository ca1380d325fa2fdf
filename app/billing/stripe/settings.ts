import { z } from 'zod'

import {
  optionalNumber,
  optionalString,
  optionalTrueOrFalse,
  optionalUrl,
  type ProviderSettings,
} from '~/lib/server/setting-types'

const whsec = z.string().startsWith('whsec_', 'must start with whsec_')

/** Stripe's variables (.env.example, docs/going-live.md "Stripe"). */
export const stripeSettings = {
  id: 'stripe',
  schema: {
    STRIPE_SECRET_KEY: z
      .string()
      .regex(/^(sk|rk)_(test|live)_/, 'must start with sk_test_, sk_live_, rk_test_ or rk_live_'),
    STRIPE_WEBHOOK_SECRET: whsec,
    STRIPE_WEBHOOK_SECRET_PREVIOUS: optionalString.pipe(whsec.optional()),
    STRIPE_API_URL: optionalUrl,
    STRIPE_CUSTOM_DOMAIN: optionalUrl,
    STRIPE_AUTOMATIC_TAX: optionalTrueOrFalse.transform((value) => value === 'true'),
    STRIPE_PORTAL_CONFIGURATION_ID: optionalString.pipe(
      z.string().startsWith('bpc_', 'must start with bpc_').optional(),
    ),
    STRIPE_TIMEOUT_MS: optionalNumber(100, 120_000, 20_000),
  },
  localDefaults: {
    STRIPE_SECRET_KEY: 'sk_test_local_emulator',
    STRIPE_WEBHOOK_SECRET: 'whsec_local_emulator_secret',
    STRIPE_API_URL: 'http://localhost:12111',
  },
  localKeys: ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'],
  apiUrl: { name: 'STRIPE_API_URL', realService: 'https://api.stripe.com' },
  planIds: {
    prefix: 'STRIPE_PRICE_',
    catalog: z.strictObject({
      productId: z.string().regex(/^prod_[A-Za-z0-9_]+$/, 'must be a Stripe product id (prod_…)'),
      priceId: z
        .string()
        .trim()
        .regex(/^price_[A-Za-z0-9_]+$/, 'must be a Stripe price id (price_…), not a product id'),
    }),
    id: 'priceId',
  },
} as const satisfies ProviderSettings
