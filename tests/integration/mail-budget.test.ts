import { expect, it } from 'vitest'

import { mailRequestsSettled } from '../../app/auth/mail-requests.server'
import * as signUpPage from '../../app/routes/sign-up'
import * as signUpCheck from '../../app/routes/sign-up_.confirm'
import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import { callAt } from './auth-support'
import { createUser, mergeCookies, testAppForFile } from './harness'

// At the auth server's hourly mail budget (429 over_email_send_rate_limit) nothing is sent.
const rateLimits = { ...SUITE_AUTH_LIMITS.rateLimits, emailSent: 0 }
const app = testAppForFile({ supabaseAuth: { rateLimits } })

it('the browser that signed up is told its mail was not sent, and when to try again', async () => {
  const existing = `budget-has-account-${Date.now()}@example.com`
  await createUser(app, existing)
  for (const email of [`budget-new-${Date.now()}@example.com`, existing]) {
    const started = await callAt(app, signUpPage.action, '/sign-up', {
      form: { email, password: 'another-passphrase-1' },
    })
    expect(started.status).toBe(303)
    const path = `/sign-up/confirm?${new URLSearchParams({ email })}`
    const cookie = mergeCookies('', new Response(null, { headers: started.headers }))
    await mailRequestsSettled()
    expect(await app.stack.supabase.inbox.latestFor(email)).toBeFalsy()
    const page = await callAt(app, signUpCheck.loader, path, { cookie })
    expect(page.data).toMatchObject({ notSentIn: '60 minutes' })
    const elsewhere = await callAt(app, signUpCheck.loader, path)
    expect(elsewhere.data).toMatchObject({ notSentIn: null })
  }
})
