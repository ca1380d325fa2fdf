/**
 * The test-only provider's registration, as a provider in the code has it: its settings, plan
 * ids and adapter, each when first imported; off until BILLING_PROVIDERS names it.
 */
import { vi } from 'vitest'

vi.mock('../../../app/billing/provider-settings', async (original) => {
  const real = await original<typeof import('../../../app/billing/provider-settings')>()
  const { testpaySettings } = await import('./settings')
  return { ...real, PROVIDER_SETTINGS: [...real.PROVIDER_SETTINGS, testpaySettings] }
})

vi.mock('../../../app/billing/catalog.json', async (original) => {
  const { plans } = (await original<{ default: { plans: { key: string }[] } }>()).default
  const withIds = plans.map((plan) => ({ ...plan, testpay: { planId: `tp_plan_${plan.key}` } }))
  return { default: { plans: withIds } }
})

vi.mock('../../../app/billing/registry.server', async (original) => {
  const real = await original<typeof import('../../../app/billing/registry.server')>()
  real.registerBillingProvider((await import('./provider')).testpayProvider)
  return real
})
