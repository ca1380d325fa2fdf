import { afterEach, expect, it, vi } from 'vitest'

import { resetEnvForTests } from '../../app/env.server'
import { createTestDatabase } from './database'
import { startAppStack, syncLocalProducts } from './stack'

afterEach(() => vi.restoreAllMocks())

// A one-provider stack as `npm run dev` starts it: its own stand-in and products, no error line.
it.each([
  ['stripe', 'polar', 2],
  ['polar', 'stripe', 0],
] as const)('a %s-only stack', async (running, other, stripeProducts) => {
  const printed = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn')]
  const stderr = vi.spyOn(process.stderr, 'write')
  const database = await createTestDatabase()
  const stack = await startAppStack(
    { database, siteUrl: 'http://localhost:5173' },
    { BILLING_PROVIDERS: running },
  )
  const saved = { ...process.env }
  try {
    expect(stack[running]).toBeDefined()
    expect(stack[other]).toBeUndefined()
    const names = Object.keys(stack.env)
    expect(names.filter((name) => name.startsWith(`${other.toUpperCase()}_`))).toEqual([])
    Object.assign(process.env, stack.env, { BILLING_PROVIDERS: running })
    resetEnvForTests()
    await syncLocalProducts(stack)
    const { rows } = await database.query('select 1 from public.stripe_products')
    expect(rows).toHaveLength(stripeProducts)
  } finally {
    process.env = saved
    resetEnvForTests()
    await stack.close()
    await database.close()
  }
  for (const spy of [...printed, stderr]) expect(spy).not.toHaveBeenCalled()
})
