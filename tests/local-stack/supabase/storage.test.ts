import type { SupabaseClient } from '@supabase/supabase-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startTestStack, type TestStack } from './test-support'

let stack: TestStack
let alice: { id: string; client: SupabaseClient }
let bob: { id: string; client: SupabaseClient }

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4])

async function signedIn(email: string) {
  const id = await stack.createUser(email)
  return { id, client: (await stack.signIn(email)).supabase }
}

beforeAll(async () => {
  stack = await startTestStack()
  alice = await signedIn('alice@example.com')
  bob = await signedIn('bob@example.com')
})
afterAll(() => stack.close())

describe('storage: profile-images bucket', () => {
  it('uploads into the user’s own folder and serves it from the public URL', async () => {
    const bucket = alice.client.storage.from('profile-images')
    const { data, error } = await bucket.upload(`${alice.id}/avatar.png`, PNG, {
      contentType: 'image/png',
    })
    expect(error).toBeNull()
    expect(data).toMatchObject({
      path: `${alice.id}/avatar.png`,
      fullPath: `profile-images/${alice.id}/avatar.png`,
    })
    expect(data?.id).toMatch(/^[0-9a-f-]{36}$/)

    const { rows } = await stack.db.query<{
      owner: string
      metadata: { mimetype: string; size: number }
    }>(
      `select owner, metadata from storage.objects where bucket_id = 'profile-images' and name = $1`,
      [`${alice.id}/avatar.png`],
    )
    expect(rows[0]).toMatchObject({
      owner: alice.id,
      metadata: { mimetype: 'image/png', size: PNG.length },
    })

    const publicUrl = bucket.getPublicUrl(`${alice.id}/avatar.png`).data.publicUrl
    const response = await fetch(publicUrl)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(PNG)
  })

  it('refuses another user’s folder through RLS', async () => {
    const { error } = await bob.client.storage
      .from('profile-images')
      .upload(`${alice.id}/evil.png`, PNG, { contentType: 'image/png' })
    expect(error).toMatchObject({
      name: 'StorageApiError',
      status: 400,
      statusCode: '403',
      message: 'new row violates row-level security policy',
    })
    const anon = await stack
      .client()
      .storage.from('profile-images')
      .upload('anyone/x.png', PNG, { contentType: 'image/png' })
    expect(anon.error).toMatchObject({ statusCode: '403' })
  })

  it('enforces the bucket’s mime types and size limit', async () => {
    const bucket = alice.client.storage.from('profile-images')
    const text = await bucket.upload(`${alice.id}/notes.txt`, new TextEncoder().encode('hello'), {
      contentType: 'text/plain',
    })
    expect(text.error).toMatchObject({
      status: 400,
      statusCode: '415',
      message: 'mime type text/plain is not supported',
    })

    const big = new Uint8Array(2 * 1024 * 1024 + 1)
    const large = await bucket.upload(`${alice.id}/huge.png`, big, { contentType: 'image/png' })
    expect(large.error).toMatchObject({
      status: 400,
      statusCode: '413',
      message: 'The object exceeded the maximum allowed size',
    })
    const { rows } = await stack.db.query(
      `select 1 from storage.objects where name like '%huge.png'`,
    )
    expect(rows).toHaveLength(0)
  })

  it('needs x-upsert to replace, lists the folder and deletes by prefixes', async () => {
    const bucket = alice.client.storage.from('profile-images')
    const path = `${alice.id}/replace.webp`
    expect(
      (await bucket.upload(path, new Uint8Array([1]), { contentType: 'image/webp' })).error,
    ).toBeNull()
    const duplicate = await bucket.upload(path, new Uint8Array([2]), { contentType: 'image/webp' })
    expect(duplicate.error).toMatchObject({
      statusCode: '409',
      message: 'The resource already exists',
    })
    const upserted = await bucket.upload(path, new Uint8Array([3, 3]), {
      contentType: 'image/webp',
      upsert: true,
    })
    expect(upserted.error).toBeNull()
    const served = await fetch(bucket.getPublicUrl(path).data.publicUrl)
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(new Uint8Array([3, 3]))

    const listed = await bucket.list(alice.id)
    expect(listed.error).toBeNull()
    expect(listed.data?.map((entry) => entry.name).sort()).toEqual(['avatar.png', 'replace.webp'])
    const bobSees = await bob.client.storage.from('profile-images').list(alice.id)
    expect(bobSees.data).toEqual([])

    const bobDeletes = await bob.client.storage.from('profile-images').remove([path])
    expect(bobDeletes.data).toEqual([])
    const removed = await bucket.remove([path])
    expect(removed.error).toBeNull()
    expect(removed.data?.map((entry) => entry.name)).toEqual([path])
    const after = await fetch(bucket.getPublicUrl(path).data.publicUrl)
    expect(after.status).toBe(400)
    expect(await after.json()).toMatchObject({ statusCode: '404', error: 'not_found' })
    const blobs = await stack.db.query(
      'select count(*)::int as n from local_emulator.storage_blobs',
    )
    expect(blobs.rows[0]).toEqual({ n: 1 })
  })

  it('answers Bucket not found for an unknown bucket', async () => {
    const { error } = await alice.client.storage
      .from('nope')
      .upload(`${alice.id}/a.png`, PNG, { contentType: 'image/png' })
    expect(error).toMatchObject({ statusCode: '404', message: 'Bucket not found' })
  })
})
