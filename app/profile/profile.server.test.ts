import { createClient } from '@supabase/supabase-js'
import { afterEach, describe, expect, it } from 'vitest'

import { getEnv, resetEnvForTests } from '~/env.server'

import { AVATAR_BUCKET, avatarUrl } from './profile.server'

const userId = '5f0c1d2e-0000-4000-8000-000000000001'

afterEach(() => {
  delete process.env.SUPABASE_URL
  resetEnvForTests()
})

describe('avatarUrl', () => {
  it.each([
    'http://127.0.0.1:54321',
    'https://abcdefgh.supabase.co/',
    'https://example.com/supabase',
  ])("is the URL storage-js' getPublicUrl gives, without a client (%s)", (url) => {
    process.env.SUPABASE_URL = url
    resetEnvForTests()
    const storage = createClient(url, getEnv().SUPABASE_ANON_KEY).storage.from(AVATAR_BUCKET)
    for (const path of [`${userId}/avatar.png`, `${userId}/a photo (1).webp`]) {
      expect(avatarUrl(userId, path)).toBe(storage.getPublicUrl(path).data.publicUrl)
    }
  })

  it("is null for a path outside the user's own folder", () => {
    expect(avatarUrl(userId, 'someone-else/avatar.png')).toBeNull()
    expect(avatarUrl(userId, `${userId}/nested/avatar.png`)).toBeNull()
    expect(avatarUrl(userId, null)).toBeNull()
  })
})
