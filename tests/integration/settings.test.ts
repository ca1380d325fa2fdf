import type { SupabaseClient } from '@supabase/supabase-js'
import { beforeAll, describe, expect, it } from 'vitest'

import type { FormReply } from '../../app/lib/forms/form-reply'
import { deliverDueMails, queueSecurityNotice } from '../../app/notifications/delivery.server'
import * as layout from '../../app/routes/dashboard'
import * as general from '../../app/routes/dashboard.settings.general'
import * as notifications from '../../app/routes/dashboard.settings.notifications'
import { callRoute } from './auth-support'
import { adminClient, createSignedInUser, rowsWhere, testAppForFile } from './harness'
import { mailCatcher } from './mail-support'
import { formPost, pageGet, pngBytes, userApiClient } from './settings-support'

const app = testAppForFile()
let admin: SupabaseClient
type User = Awaited<ReturnType<typeof createSignedInUser>>

const GENERAL = '/dashboard/settings/general'
const postGeneral = (user: User, fields: Record<string, string | Blob>) =>
  callRoute<FormReply>(general.action, formPost(`${app.url}${GENERAL}`, user.cookie, fields))

async function profile(userId: string) {
  const { data } = await admin.from('user_profiles').select('*').eq('user_id', userId).single()
  return data as { display_name: string | null; avatar_path: string | null } & Record<
    string,
    unknown
  >
}
async function storedNames(userId: string) {
  const { data } = await admin.storage.from('profile-images').list(userId)
  return (data ?? []).map((item) => `${userId}/${item.name}`).sort()
}
const png = (size?: number) => new File([pngBytes(size)], 'me.png', { type: 'image/png' })

beforeAll(() => {
  admin = adminClient(app)
})

describe('display name', () => {
  it('saves a trimmed name and shows it in the dashboard layout', async () => {
    const user = await createSignedInUser(app)
    const answer = await postGeneral(user, { intent: 'display-name', displayName: '  Ada L. ' })
    expect(answer.status).toBe(200)
    expect(answer.data.message).toBe('Your name has been saved.')
    expect((await profile(user.id)).display_name).toBe('Ada L.')
    const page = await callRoute<{ profile: { displayName: string } }>(
      layout.loader,
      pageGet(`${app.url}/dashboard`, user.cookie),
    )
    expect(page.data.profile.displayName).toBe('Ada L.')
  })

  it('refuses an empty or too long name with a field error and changes nothing', async () => {
    const user = await createSignedInUser(app)
    await postGeneral(user, { intent: 'display-name', displayName: 'Before' })
    for (const displayName of ['   ', 'x'.repeat(81)]) {
      const answer = await postGeneral(user, { intent: 'display-name', displayName })
      expect(answer.status).toBe(400)
      expect(answer.data.result.error?.displayName?.length).toBe(1)
    }
    expect((await profile(user.id)).display_name).toBe('Before')
  })

  it('sends a signed-out visitor to sign in', async () => {
    const request = formPost(`${app.url}${GENERAL}`, '', {
      intent: 'display-name',
      displayName: 'X',
    })
    const answer = await callRoute(general.action, request)
    expect(answer.status).toBe(302)
    expect(answer.location).toMatch(/^\/sign-in\?redirectTo=/)
  })
})

describe('avatar', () => {
  it('stores a PNG under the user’s folder, serves it publicly and shows it in the layout', async () => {
    const user = await createSignedInUser(app)
    const answer = await postGeneral(user, { intent: 'avatar', avatar: png() })
    expect(answer.status).toBe(200)
    expect(answer.data.message).toBe('Your avatar has been updated.')
    const path = (await profile(user.id)).avatar_path
    expect(path).toMatch(new RegExp(`^${user.id}/avatar-[0-9a-f-]{36}\\.png$`))
    expect(await storedNames(user.id)).toEqual([path])
    const page = await callRoute<{ profile: { avatarUrl: string } }>(
      layout.loader,
      pageGet(`${app.url}/dashboard`, user.cookie),
    )
    expect(page.data.profile.avatarUrl).toBe(
      `${app.stack.env.SUPABASE_URL}/storage/v1/object/public/profile-images/${path}`,
    )
    const image = await fetch(page.data.profile.avatarUrl)
    expect(image.headers.get('content-type')).toBe('image/png')
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(pngBytes())
  })

  it('replacing the avatar removes the old file; removing it clears the profile and deletes the file', async () => {
    const user = await createSignedInUser(app)
    await postGeneral(user, { intent: 'avatar', avatar: png() })
    const first = (await profile(user.id)).avatar_path
    expect((await postGeneral(user, { intent: 'avatar', avatar: png(200) })).status).toBe(200)
    const second = (await profile(user.id)).avatar_path
    expect(second).not.toBe(first)
    expect(await storedNames(user.id)).toEqual([second])
    const answer = await postGeneral(user, { intent: 'remove-avatar' })
    expect(answer.data.message).toBe('Your avatar has been removed.')
    expect((await profile(user.id)).avatar_path).toBeNull()
    expect(await storedNames(user.id)).toEqual([])
  })

  it.each([
    [
      'a declared type outside the list',
      new File([pngBytes()], 'a.svg', { type: 'image/svg+xml' }),
      'Upload a PNG, JPEG, WebP or GIF image',
    ],
    [
      'text that claims to be a PNG',
      new File(['<svg onload=alert(1)>'], 'a.png', { type: 'image/png' }),
      'Upload a PNG, JPEG, WebP or GIF image',
    ],
    ['a PNG one byte over 2 MB', png(2 * 1024 * 1024 + 1), 'The image must be 2 MB or smaller'],
    [
      'no file',
      new File([], '', { type: 'application/octet-stream' }),
      'Choose an image to upload',
    ],
  ])('refuses %s and stores nothing', async (_label, file, message) => {
    const user = await createSignedInUser(app)
    const answer = await postGeneral(user, { intent: 'avatar', avatar: file })
    expect(answer.status).toBe(400)
    expect(answer.data.result.error?.avatar).toEqual([message])
    expect((await profile(user.id)).avatar_path).toBeNull()
    expect(await storedNames(user.id)).toEqual([])
  })

  it.each([
    ['accepts a PNG exactly at the 2 MB limit', 2 * 1024 * 1024, 200, 1],
    ['answers 413 to a body far over the limit without reading it', 9 * 1024 * 1024, 413, 0],
  ])('%s', async (_label, size, status, stored) => {
    const user = await createSignedInUser(app)
    expect((await postGeneral(user, { intent: 'avatar', avatar: png(size) })).status).toBe(status)
    expect(await storedNames(user.id)).toHaveLength(stored)
  })

  it('runs one upload of an account at a time: another meanwhile is told to wait', async () => {
    const user = await createSignedInUser(app)
    const form = new FormData()
    form.append('intent', 'avatar')
    form.append('avatar', png())
    const encoded = new Response(form)
    const bytes = new Uint8Array(await encoded.arrayBuffer())
    let release = () => {}
    const released = new Promise<void>((resolve) => (release = resolve))
    let started = () => {}
    const reading = new Promise<void>((resolve) => (started = resolve))
    // An upload whose body arrives once released: `reading` once the action reads it.
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          started()
          await released
          controller.enqueue(bytes)
          controller.close()
        },
      },
      { highWaterMark: 0 },
    )
    const headers = { Cookie: user.cookie, 'Content-Type': encoded.headers.get('Content-Type')! }
    const init = { method: 'POST', headers, body, duplex: 'half' } as RequestInit
    const running = callRoute<FormReply>(general.action, new Request(`${app.url}${GENERAL}`, init))
    await reading
    const meanwhile = await postGeneral(user, { intent: 'avatar', avatar: png() })
    expect(meanwhile.status).toBe(429)
    expect(meanwhile.data.result.error?.avatar).toEqual([
      'Your last image is still uploading. Try again in a moment.',
    ])
    const other = await createSignedInUser(app)
    expect((await postGeneral(other, { intent: 'avatar', avatar: png() })).status).toBe(200)
    release()
    expect((await running).status).toBe(200)
    expect((await postGeneral(user, { intent: 'avatar', avatar: png() })).status).toBe(200)
  })
})

describe('notification preferences', () => {
  it('saves the checkboxes, and mail paths honour them', async () => {
    const user = await createSignedInUser(app)
    const url = `${app.url}/dashboard/settings/notifications`
    const answer = await callRoute<FormReply>(
      notifications.action,
      formPost(url, user.cookie, { billing: 'on' }),
    )
    expect(answer.status).toBe(200)
    expect(answer.data.message).toBe('Your preferences have been saved.')
    expect(await profile(user.id)).toMatchObject({
      notify_product_updates: false,
      notify_billing: true,
      notify_security: false,
    })
    const page = await callRoute<{ preferences: unknown }>(
      notifications.loader,
      pageGet(url, user.cookie),
    )
    expect(page.data.preferences).toEqual({ productUpdates: false, billing: true, security: false })

    // Security alerts are off: a queued notice is skipped at delivery, not sent.
    await queueSecurityNotice(user.id, 'password_changed')
    const mails = mailCatcher()
    await deliverDueMails(mails.transport)
    expect(mails.to(user.email)).toEqual([])
    const outbox = rowsWhere(
      app,
      'notification_outbox',
      { user_id: user.id },
      { select: 'kind, status' },
    )
    expect(await outbox).toEqual([{ kind: 'password_changed', status: 'skipped' }])
  })

  it('a new user gets billing and security mails, and product updates only after opting in', async () => {
    const user = await createSignedInUser(app)
    expect(await profile(user.id)).toMatchObject({
      notify_product_updates: false,
      notify_billing: true,
      notify_security: true,
    })
    const page = await callRoute<{ preferences: unknown }>(
      notifications.loader,
      pageGet(`${app.url}/dashboard/settings/notifications`, user.cookie),
    )
    expect(page.data.preferences).toEqual({ productUpdates: false, billing: true, security: true })
  })
})

describe('one user never sees or changes another’s data', () => {
  let alice: User
  let bob: User
  let bobApi: SupabaseClient
  let alicePath: string

  beforeAll(async () => {
    alice = await createSignedInUser(app)
    bob = await createSignedInUser(app)
    await postGeneral(alice, { intent: 'display-name', displayName: 'Alice Secret' })
    await postGeneral(alice, { intent: 'avatar', avatar: png() })
    alicePath = (await profile(alice.id)).avatar_path as string
    bobApi = await userApiClient(app, bob.email)
  })

  it('pages show only the signed-in user’s profile', async () => {
    const page = await callRoute<Record<string, unknown>>(
      general.loader,
      pageGet(`${app.url}${GENERAL}`, bob.cookie),
    )
    expect(page.data).toEqual({
      email: bob.email,
      displayName: null,
      avatarUrl: null,
      constraint: { displayName: { required: true, minLength: 1, maxLength: 80 } },
    })
  })

  it('form fields naming another user are ignored', async () => {
    await postGeneral(bob, {
      intent: 'display-name',
      displayName: 'Bob',
      user_id: alice.id,
      userId: alice.id,
    })
    expect((await profile(alice.id)).display_name).toBe('Alice Secret')
    expect((await profile(bob.id)).display_name).toBe('Bob')
  })

  it('pointing one’s own profile at the other’s file neither shows nor deletes it', async () => {
    await bobApi.from('user_profiles').update({ avatar_path: alicePath }).eq('user_id', bob.id)
    const page = await callRoute<{ avatarUrl: string | null }>(
      general.loader,
      pageGet(`${app.url}${GENERAL}`, bob.cookie),
    )
    expect(page.data.avatarUrl).toBeNull()
    expect((await postGeneral(bob, { intent: 'avatar', avatar: png() })).status).toBe(200)
    await postGeneral(bob, { intent: 'remove-avatar' })
    expect(await storedNames(alice.id)).toEqual([alicePath])
  })
})
