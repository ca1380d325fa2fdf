import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { raw, startTestStack, type TestStack } from './test-support'

let stack: TestStack
beforeAll(async () => {
  stack = await startTestStack()
})
afterAll(() => stack.close())

describe('emulator server', () => {
  it('listens on loopback and is reachable as localhost and 127.0.0.1', async () => {
    expect(stack.emulator.url).toBe(`http://localhost:${stack.emulator.port}`)
    const viaIp = await fetch(`http://127.0.0.1:${stack.emulator.port}/auth/v1/health`)
    expect(viaIp.status).toBe(200)
  })

  it('answers CORS preflights for browser clients', async () => {
    const response = await raw(stack.emulator, '/auth/v1/token?grant_type=password', {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'apikey, authorization, x-client-info, x-supabase-api-version, content-type',
      },
    })
    expect(response.status).toBe(204)
    expect(response.headers.get('access-control-allow-origin')).toBe('http://localhost:5173')
    expect(response.headers.get('access-control-allow-headers')).toContain('x-supabase-api-version')
  })

  it('never lets another website read the inbox or the user list', async () => {
    for (const path of ['/_inbox', '/_inbox/messages.json', '/_users']) {
      const response = await raw(stack.emulator, path, {
        headers: { origin: 'https://evil.example' },
      })
      expect(response.headers.get('access-control-allow-origin')).toBeNull()
      const preflight = await raw(stack.emulator, path, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      })
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    }
  })

  it('mounts PostgREST at /rest/v1, running as the signed-in user', async () => {
    const id = await stack.createUser('rest@example.com')
    await stack.createUser('other@example.com')
    const supabase = stack.client()
    await supabase.auth.signInWithPassword({
      email: 'rest@example.com',
      password: 'correct-horse-battery',
    })
    const { data, error } = await supabase.from('user_profiles').select('user_id')
    expect(error).toBeNull()
    expect(data).toEqual([{ user_id: id }])
  })

  it('answers 404 JSON for unknown paths', async () => {
    const response = await raw(stack.emulator, '/nowhere')
    expect(response.status).toBe(404)
  })
})
