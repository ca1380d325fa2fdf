import { describe, expect, it } from 'vitest'

import { VerifiedSessions } from './verified-sessions.server'

const ada = {
  user: {
    id: '5f0c1d2e-0000-4000-8000-000000000001',
    email: 'ada@example.com',
    sessionId: '5f0c1d2e-0000-4000-8000-0000000000aa',
  },
  // Remembered with the user: the token the page reads are sent with.
  asUser: { accessToken: 'eyJ.ada.token' },
}

describe('VerifiedSessions', () => {
  it('recalls a remembered session by its key only', () => {
    const sessions = new VerifiedSessions(10, 300, 120, () => 1_000)
    sessions.remember('a', ada, 1_000 + 3_600)
    expect(sessions.recall('a')).toEqual(ada)
    expect(sessions.recall('b')).toBeNull()
  })

  it('forgets a session after its maximum age', () => {
    let now = 1_000
    const sessions = new VerifiedSessions(10, 300, 120, () => now)
    sessions.remember('a', ada, now + 3_600)
    now += 299
    expect(sessions.recall('a')).toEqual(ada)
    now += 1
    expect(sessions.recall('a')).toBeNull()
    expect(sessions.size).toBe(0)
  })

  it('never serves a token within the expiry margin, so supabase-js still refreshes it', () => {
    let now = 1_000
    const sessions = new VerifiedSessions(10, 300, 120, () => now)
    sessions.remember('a', ada, now + 200) // usable until 80 s from now
    now += 79
    expect(sessions.recall('a')).toEqual(ada)
    now += 1
    expect(sessions.recall('a')).toBeNull()
    // Already inside the margin: not remembered at all.
    sessions.remember('b', ada, now + 100)
    expect(sessions.recall('b')).toBeNull()
    expect(sessions.size).toBe(0)
  })

  it('keeps at most maxEntries, the oldest going first', () => {
    const sessions = new VerifiedSessions(2, 300, 120, () => 1_000)
    for (const key of ['a', 'b', 'c']) sessions.remember(key, ada, 10_000)
    expect(sessions.size).toBe(2)
    expect(sessions.recall('a')).toBeNull()
    expect(sessions.recall('c')).toEqual(ada)
  })

  it('forgets a session on request (an ended one)', () => {
    const sessions = new VerifiedSessions(10, 300, 120, () => 1_000)
    sessions.remember('a', ada, 1_000 + 3_600)
    sessions.forget('a')
    expect(sessions.recall('a')).toBeNull()
  })
})
