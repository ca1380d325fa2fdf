import {
  AuthApiError,
  AuthRetryableFetchError,
  AuthSessionMissingError,
} from '@supabase/supabase-js'
import { afterEach, describe, expect, it, vi } from 'vitest'

import { SESSION_CHECK_GRACE_SECONDS, sessionConfirmations } from './session.server'
import { isAuthServerUnavailable, isDefiniteSessionEnd } from './session-answers'

describe('isDefiniteSessionEnd', () => {
  it.each([
    'session_not_found',
    'session_expired',
    'user_not_found',
    'user_banned',
    'refresh_token_not_found',
    'refresh_token_already_used',
  ])('%s ends the session', (code) => {
    expect(isDefiniteSessionEnd(new AuthApiError('gone', 400, code))).toBe(true)
  })

  it('so does auth-js’s rendering of session_not_found (no code)', () => {
    expect(isDefiniteSessionEnd(new AuthSessionMissingError())).toBe(true)
  })

  it.each([
    ['a 429', new AuthApiError('Request rate limit reached', 429, 'over_request_rate_limit')],
    ['a 5xx', new AuthRetryableFetchError('Bad Gateway', 502)],
    ['no answer', new AuthRetryableFetchError('This operation was aborted', 0)],
    ['a refused token', new AuthApiError('invalid JWT', 403, 'bad_jwt')],
    ['a validation error', new AuthApiError('Not Issued By This Server', 400, 'validation_failed')],
    ['nothing', null],
  ])('%s does not', (_, error) => {
    expect(isDefiniteSessionEnd(error)).toBe(false)
  })
})

describe('isAuthServerUnavailable', () => {
  it.each([
    ['no answer', new AuthRetryableFetchError('fetch failed', 0), true],
    ['a 5xx', new AuthRetryableFetchError('Service Unavailable', 503), true],
    ['a 429', new AuthApiError('Request rate limit reached', 429, 'over_request_rate_limit'), true],
    ['a refused token', new AuthApiError('invalid JWT', 403, 'bad_jwt'), false],
    ['a session gone', new AuthSessionMissingError(), false],
    ['nothing', null, false],
  ])('%s: %s', (_, error, expected) => {
    expect(isAuthServerUnavailable(error)).toBe(expected)
  })
})

describe('sessionConfirmations', () => {
  const session = '5f0c1d2e-0000-4000-8000-0000000000aa'
  /** What the existence check records when it says "active". */
  const confirm = () =>
    sessionConfirmations.set(session, true, Date.now() / 1000 + SESSION_CHECK_GRACE_SECONDS)

  afterEach(() => {
    sessionConfirmations.clear()
    vi.useRealTimers()
  })

  it('remembers a confirmed session for the grace period only', () => {
    vi.useFakeTimers({ now: 1_000_000 })
    expect(sessionConfirmations.get(session)).toBeUndefined()
    confirm()
    vi.advanceTimersByTime((SESSION_CHECK_GRACE_SECONDS - 1) * 1000)
    expect(sessionConfirmations.get(session)).toBe(true)
    vi.advanceTimersByTime(1000)
    expect(sessionConfirmations.get(session)).toBeUndefined()
  })

  it('forgets a session the check said has ended, at once', () => {
    confirm()
    sessionConfirmations.delete(session)
    expect(sessionConfirmations.get(session)).toBeUndefined()
  })

  it('the grace period is seconds, not minutes', () => {
    expect(SESSION_CHECK_GRACE_SECONDS).toBeLessThanOrEqual(30)
  })
})
