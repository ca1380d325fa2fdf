import { afterAll, describe, expect, it } from 'vitest'

import { createTestDatabase, newUser as addUser, value } from '../setup/database'

// The per-request check that a token's session still exists in auth.sessions.
const db = await createTestDatabase()
afterAll(() => db.close())

const newUser = (email: string) => addUser(db, email)
const newSession = (userId: string, notAfter: string | null = null) =>
  value(
    db,
    'insert into auth.sessions (user_id, not_after) values ($1, $2) returning id as value',
    [userId, notAfter],
  )
const isActive = (sessionId: string, userId: string) =>
  value<boolean>(db, 'select public.session_is_active($1, $2) as value', [sessionId, userId])

describe('session_is_active', () => {
  it('is true for an existing session of that user, false once the session is deleted', async () => {
    const user = await newUser('session-a@example.com')
    const session = await newSession(user)
    expect(await isActive(session, user)).toBe(true)
    await db.query('delete from auth.sessions where id = $1', [session])
    expect(await isActive(session, user)).toBe(false)
  })

  it('is false for a session of another user (a token cannot borrow a live session id)', async () => {
    const owner = await newUser('session-b@example.com')
    const other = await newUser('session-c@example.com')
    const session = await newSession(owner)
    expect(await isActive(session, other)).toBe(false)
  })

  it('is false past the session’s time box (not_after)', async () => {
    const user = await newUser('session-d@example.com')
    expect(await isActive(await newSession(user, '2000-01-01T00:00:00Z'), user)).toBe(false)
    expect(await isActive(await newSession(user, '2999-01-01T00:00:00Z'), user)).toBe(true)
  })

  it('ends with the user (sessions cascade)', async () => {
    const user = await newUser('session-e@example.com')
    const session = await newSession(user)
    await db.query('delete from auth.users where id = $1', [user])
    expect(await isActive(session, user)).toBe(false)
  })
})
