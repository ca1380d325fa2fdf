import type { SupabaseClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestStack, type TestStack } from './test-support'

// What Storage refuses, in its error shape (400 with the status in the body). Uploads, public
// reads, listing and deletes are the product's (tests/integration/settings.test.ts, avatar).
let stack: TestStack
let alice: { id: string; bucket: ReturnType<SupabaseClient['storage']['from']> }

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

beforeAll(async () => {
  stack = await startTestStack()
  const id = await stack.createUser('alice@example.com')
  const { supabase } = await stack.signIn('alice@example.com')
  alice = { id, bucket: supabase.storage.from('profile-images') }
})
afterAll(() => stack.close())

describe('storage refuses', () => {
  it.each<[string, () => Promise<{ error: unknown }>, Record<string, unknown>]>([
    [
      "another user's folder (RLS)",
      () =>
        stack
          .client()
          .storage.from('profile-images')
          .upload('anyone/x.png', PNG, { contentType: 'image/png' }),
      { statusCode: '403', message: 'new row violates row-level security policy' },
    ],
    [
      'a MIME type the bucket does not allow',
      () =>
        alice.bucket.upload(`${alice.id}/notes.txt`, new TextEncoder().encode('hello'), {
          contentType: 'text/plain',
        }),
      { statusCode: '415', message: 'mime type text/plain is not supported' },
    ],
    [
      "more than the bucket's size limit",
      () =>
        alice.bucket.upload(`${alice.id}/huge.png`, new Uint8Array(2 * 1024 * 1024 + 1), {
          contentType: 'image/png',
        }),
      { statusCode: '413', message: 'The object exceeded the maximum allowed size' },
    ],
    [
      'an existing path without x-upsert',
      async () => {
        await alice.bucket.upload(`${alice.id}/same.png`, PNG, { contentType: 'image/png' })
        return alice.bucket.upload(`${alice.id}/same.png`, PNG, { contentType: 'image/png' })
      },
      { statusCode: '409', message: 'The resource already exists' },
    ],
    [
      'an unknown bucket',
      () =>
        stack
          .client()
          .storage.from('nope')
          .upload(`${alice.id}/a.png`, PNG, { contentType: 'image/png' }),
      { statusCode: '404', message: 'Bucket not found' },
    ],
  ])('%s', async (_name, run, expected) => {
    const { error } = await run()
    expect(error).toMatchObject({ name: 'StorageApiError', status: 400, ...expected })
  })

  it('a public read of a deleted object: 400 with 404 in the body', async () => {
    const path = `${alice.id}/gone.png`
    await alice.bucket.upload(path, PNG, { contentType: 'image/png' })
    await alice.bucket.remove([path])
    const response = await fetch(alice.bucket.getPublicUrl(path).data.publicUrl)
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({ statusCode: '404', error: 'not_found' })
  })
})
