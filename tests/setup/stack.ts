import { PLAN_CATALOG } from '../../app/billing/plans'
import { runningProviders } from '../../app/env.server'
import {
  type LocalStack,
  type LocalStackOptions,
  type PartialLocalStack,
  startLocalStack,
} from '../local-stack/stack'

/** The one way to start the local stack: the stand-ins BILLING_PROVIDERS runs, with the plans. */
export function startAppStack(
  options: Omit<LocalStackOptions, 'catalog' | 'providers'> & {
    catalog?: LocalStackOptions['catalog']
  },
  env: Record<string, string | undefined> = process.env,
): Promise<PartialLocalStack> {
  const providers = runningProviders(env).map(({ id }) => id)
  return startLocalStack({ catalog: PLAN_CATALOG, ...options, providers })
}

/** For a caller that drives both payment stand-ins (the integration tests, the soak). */
export function withBothStandIns(stack: PartialLocalStack): LocalStack {
  const { stripe, polar, polarProduction } = stack
  if (stripe && polar && polarProduction) return { ...stack, stripe, polar, polarProduction }
  void stack.close()
  throw new Error('This drives the Stripe and the Polar stand-in: leave BILLING_PROVIDERS unset')
}

/** `npm run dev` on the local stack: `stripe_products` from the Stripe stand-in, when it runs. */
export async function syncLocalProducts(stack: PartialLocalStack) {
  if (!stack.stripe) return
  const { syncStripeProducts } = await import('../../app/billing/stripe/products.server')
  await syncStripeProducts().catch((error: Error) =>
    console.warn(`stripe_products sync failed: ${error.message}`),
  )
}
