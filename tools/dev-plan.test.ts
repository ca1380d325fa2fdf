import { describe, expect, it } from 'vitest'

import { LOCAL_DEFAULTS } from '../app/env.server'
import { DEFAULT_DEV_PORTS, planDev } from './dev-plan'

const defaults = {
  SUPABASE_URL: LOCAL_DEFAULTS.SUPABASE_URL,
  STRIPE_API_URL: LOCAL_DEFAULTS.STRIPE_API_URL,
  POLAR_API_URL: LOCAL_DEFAULTS.POLAR_API_URL,
}
const elsewhere = {
  SUPABASE_URL: 'http://127.0.0.1:54321', // the Supabase CLI's stack
  STRIPE_API_URL: '', // the real Stripe
  POLAR_API_URL: '',
}

describe('planDev', () => {
  it("starts the local stack with no .env, on ports that are not the Supabase CLI's", () => {
    const plan = planDev({}, defaults)
    expect(plan.localStack).toBe(true)
    expect(plan.ports).toEqual(DEFAULT_DEV_PORTS)
    for (const value of Object.values(plan.ports)) expect(value < 54320 || value > 54329).toBe(true)
  })

  it('runs the app alone when .env points every service elsewhere', () => {
    expect(planDev(elsewhere, defaults)).toMatchObject({ localStack: false })
  })

  it('keeps the stack while any service is still the local one', () => {
    expect(
      planDev({ ...elsewhere, POLAR_API_URL: defaults.POLAR_API_URL }, defaults),
    ).toMatchObject({
      localStack: true,
      reason: 'local POLAR_API_URL',
    })
  })

  it("asks only for the running providers' services", () => {
    const stripeOnly = planDev({ BILLING_PROVIDERS: 'stripe' }, defaults)
    expect(stripeOnly).toMatchObject({
      reason: 'local SUPABASE_URL, STRIPE_API_URL',
    })
    const polarOnly = { ...elsewhere, BILLING_PROVIDERS: 'polar', POLAR_API_URL: undefined }
    expect(planDev(polarOnly, defaults)).toMatchObject({
      localStack: true,
      reason: 'local POLAR_API_URL',
    })
    // A Stripe-only app on real services needs no stand-in, whatever Polar's URL says.
    const realStripe = { ...elsewhere, BILLING_PROVIDERS: 'stripe', POLAR_API_URL: undefined }
    expect(planDev(realStripe, defaults).localStack).toBe(false)
  })

  it('obeys LOCAL_STACK=on/off and refuses other values and bad ports clearly', () => {
    expect(planDev({ LOCAL_STACK: 'OFF' }, defaults).localStack).toBe(false)
    expect(planDev({ ...elsewhere, LOCAL_STACK: 'on' }, defaults).localStack).toBe(true)
    expect(() => planDev({ LOCAL_STACK: 'maybe' }, defaults)).toThrow(/"on" or "off"/)
    expect(planDev({ LOCAL_SUPABASE_PORT: '60001' }, defaults).ports.supabase).toBe(60001)
    expect(() => planDev({ LOCAL_STRIPE_PORT: 'x' }, defaults)).toThrow(/LOCAL_STRIPE_PORT/)
  })

  it('moves the app to LOCAL_APP_PORT, SITE_URL following it unless it names another site', () => {
    expect(planDev({}, defaults)).toMatchObject({
      ports: { app: 5173 },
      siteUrl: 'http://localhost:5173',
    })
    const moved = { LOCAL_APP_PORT: '5300', SITE_URL: 'http://localhost:5173' }
    expect(planDev(moved, defaults)).toMatchObject({
      ports: { app: 5300 },
      siteUrl: 'http://localhost:5300',
    })
    expect(planDev({ LOCAL_APP_PORT: '5300' }, defaults).siteUrl).toBe('http://localhost:5300')
    const tunnel = { LOCAL_APP_PORT: '5300', SITE_URL: 'https://abc.trycloudflare.com' }
    expect(planDev(tunnel, defaults).siteUrl).toBe('https://abc.trycloudflare.com')
    expect(() => planDev({ LOCAL_APP_PORT: '70000' }, defaults)).toThrow(/LOCAL_APP_PORT/)
  })
})
