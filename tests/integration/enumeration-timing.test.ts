import { performance } from 'node:perf_hooks'

import { beforeAll, describe, expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import { MemoryRateLimitStore, setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import * as settingsAccount from '../../app/routes/dashboard.settings.account'
import * as forgotPasswordPage from '../../app/routes/forgot-password'
import * as signInPage from '../../app/routes/sign-in'
import * as signUpPage from '../../app/routes/sign-up'
import * as checkEmailPage from '../../app/routes/sign-up_.confirm'
import { appRequest, callRoute } from './auth-support'
import { createSignedInUser, createUser, newEmail, testAppForFile } from './harness'
import { bestThresholdAccuracy, mannWhitneyU } from './timing-statistics'

/**
 * Sign-up, "send it again", email change, password reset and the magic link must not say by
 * their time whether an address has an account (docs/security.md). SAMPLES answers each,
 * interleaved at random, one at a time, each after the previous one's work is done: the
 * Mann-Whitney U test finds no difference (p ≥ 0.001) and the best time threshold is at most
 * 75 % right (chance is 50 %; noise alone stays under 70 % in 99 runs out of 100).
 */
const SAMPLES = 40
// Each request from its own client, so no per-client budget runs out.
const app = testAppForFile({ env: { TRUSTED_PROXY_COUNT: '1' } })

beforeAll(() => {
  setRateLimitStore(new MemoryRateLimitStore())
})

async function existingAccount(confirmed = true) {
  const { email } = await createUser(app, newEmail('taken'), { confirmed })
  return email
}

async function mailCount(email: string) {
  return (await app.stack.supabase.inbox.list()).filter((mail) => mail.to === email).length
}

/** Waits (untimed) until `email` has received a mail more than it had. */
async function mailArrived(email: string, before: number) {
  const deadline = Date.now() + 10_000
  while ((await mailCount(email)) <= before) {
    if (Date.now() > deadline) throw new Error(`no mail reached ${email}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Runs `measure` for each case in random order; the times, by case kind. */
async function measureInterleaved(
  cases: { existing: boolean; email: string }[],
  measure: (email: string, index: number) => Promise<number>,
  { mailsOnlyToAccounts = false } = {},
) {
  const shuffled = cases
    .map((item) => ({ item, key: Math.random() }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item)
  const times = { existing: [] as number[], fresh: [] as number[] }
  for (const [index, item] of shuffled.entries()) {
    const before = await mailCount(item.email)
    const ms = await measure(item.email, index)
    if (item.existing || !mailsOnlyToAccounts) await mailArrived(item.email, before)
    // And whatever the request left to do after its answer is done, so it cannot slow the
    // next measurement.
    await mailRequestsSettled()
    ;(item.existing ? times.existing : times.fresh).push(ms)
  }
  return times
}

function expectIndistinguishable(times: { existing: number[]; fresh: number[] }) {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]
  const { p } = mannWhitneyU(times.existing, times.fresh)
  const accuracy = bestThresholdAccuracy(times.existing, times.fresh)
  const summary = `medians ${median(times.existing).toFixed(1)} ms (account) vs ${median(times.fresh).toFixed(1)} ms (new); Mann-Whitney p = ${p.toExponential(2)}; best threshold accuracy ${(accuracy * 100).toFixed(0)} %`
  if (process.env.TIMING_REPORT) console.info(summary)
  expect(p, summary).toBeGreaterThanOrEqual(0.001)
  expect(accuracy, summary).toBeLessThanOrEqual(0.75)
}

async function cases(confirmed = true) {
  const list: { existing: boolean; email: string }[] = []
  for (let i = 0; i < SAMPLES; i++) {
    list.push({ existing: true, email: await existingAccount(confirmed) })
    list.push({ existing: false, email: newEmail('fresh') })
  }
  return list
}

describe('response time does not reveal an account', () => {
  // Each request from a client of its own (10.<20 + the path's length>.x.y).
  it.each([
    ['sign-up', '/sign-up', signUpPage.action, { password: 'correct-horse-battery-staple' }, 303],
    ['password reset', '/forgot-password', forgotPasswordPage.action, {}, 200],
    ['magic link', '/sign-in', signInPage.action, { intent: 'magic-link' }, 303],
    // An address waiting for its confirmation (an unconfirmed account) against none.
    ['"send it again"', '/sign-up/confirm', checkEmailPage.action, { intent: 'resend' }, 200],
  ] as const)(
    '%s: an address with an account answers like one without',
    async (label, path, action, form, status) => {
      const times = await measureInterleaved(
        await cases(label !== '"send it again"'),
        async (email, index) => {
          const request = appRequest(app, path, { form: { ...form, email } })
          request.headers.set(
            'X-Forwarded-For',
            `10.${20 + path.length}.${index >> 8}.${index & 255}`,
          )
          const started = performance.now()
          const answer = await callRoute(action, request)
          const ms = performance.now() - started
          expect(answer.status).toBe(status)
          return ms
        },
        // A sign-up mails a new address too (its confirmation); the others only accounts.
        { mailsOnlyToAccounts: label !== 'sign-up' },
      )
      expectIndistinguishable(times)
    },
    180_000,
  )

  it('email change: an address another account has answers like a free one', async () => {
    const list = await cases()
    const requesters = await Promise.all(list.map(() => createSignedInUser(app)))
    const times = await measureInterleaved(list, async (email, index) => {
      const request = appRequest(app, '/dashboard/settings/account', {
        cookie: requesters[index].cookie,
        form: { intent: 'change-email', email, currentPassword: 'correct-horse-battery' },
      })
      request.headers.set('X-Forwarded-For', `10.99.${index >> 8}.${index & 255}`)
      const started = performance.now()
      const answer = await callRoute(settingsAccount.action, request)
      const ms = performance.now() - started
      expect(answer.status).toBe(200)
      return ms
    })
    expectIndistinguishable(times)
  }, 300_000)
})
