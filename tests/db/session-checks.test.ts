import { afterAll, describe, expect, it } from 'vitest'

import { createTestDatabase } from '../setup/database'

/**
 * public.session_is_active: the per-request check that a signed-in token's session still
 * exists in auth.sessions (ended by a sign-out anywhere, by "sign out everywhere", or by
 * deleting the user). Runs on PGlite and on the PostgreSQL server.
 */

const db = await createTestDatabase()
afterAll(() => db.close())

async function newUser(email: string) {
  const { rows } = await db.query<{ id: string }>(
    `insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id`,
    [email],
  )
  return rows[0].id
}

async function newSession(userId: string, notAfter: string | null = null) {
  const { rows } = await db.query<{ id: string }>(
    'insert into auth.sessions (user_id, not_after) values ($1, $2) returning id',
    [userId, notAfter],
  )
  return rows[0].id
}

async function isActive(sessionId: string, userId: string) {
  const { rows } = await db.query<{ active: boolean }>(
    'select public.session_is_active($1, $2) as active',
    [sessionId, userId],
  )
  return rows[0].active
}

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
