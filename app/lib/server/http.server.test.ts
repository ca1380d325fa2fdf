import type { ServerBuild } from '@remix-run/node'
import { describe, expect, test } from 'vitest'

import {
  capRequestBodies,
  FORM_MAX_BYTES,
  formDataToObject,
  jsonNoStore,
  mediaType,
  readBodyWithLimit,
  readPayload,
} from './http.server'

function post(body: BodyInit | null, headers: HeadersInit = {}) {
  return new Request('http://localhost/', { method: 'POST', body, headers })
}

// What a JSON or form body within or over its cap reads as: app/routes/api.contact.test.ts.
describe('readBodyWithLimit', () => {
  test('returns an empty body for a request without one', async () => {
    expect(await readBodyWithLimit(new Request('http://localhost/'), 5)).toEqual(new Uint8Array())
  })
})

describe('capRequestBodies', () => {
  /** A build of one route whose action is `action`, capped; calls it with `request`. */
  async function callCapped(
    action: (args: { request: Request }) => Promise<unknown>,
    request: Request,
  ) {
    const build = { routes: { r: { id: 'r', module: { action } } } } as unknown as ServerBuild
    const capped = capRequestBodies(build).routes.r!.module.action!
    return Promise.resolve(capped({ request, params: {}, context: {} })).catch(
      (thrown: unknown) => thrown,
    )
  }
  const big = () => post('a='.padEnd(FORM_MAX_BYTES + 10, 'x'))

  test('an action that reads its body itself gets a 413 past FORM_MAX_BYTES, whatever it does with the failure', async () => {
    const answer = await callCapped(async ({ request }) => {
      await request.formData().catch(() => new FormData())
      return 'acted'
    }, big())
    expect(answer).toBeInstanceOf(Response)
    expect((answer as Response).status).toBe(413)
  })

  test('a declared length over the cap is refused without a byte read', async () => {
    let pulled = false
    const body = new ReadableStream({ pull: () => void (pulled = true) }, { highWaterMark: 0 })
    const request = new Request('http://localhost/', {
      method: 'POST',
      body,
      headers: { 'Content-Length': String(FORM_MAX_BYTES + 1) },
      duplex: 'half',
    } as RequestInit)
    const answer = await callCapped(({ request }) => request.text(), request)
    expect((answer as Response).status).toBe(413)
    expect(pulled).toBe(false)
  })

  test('a reader that chose a larger cap reads up to it, and keeps its own answer past it', async () => {
    const read = ({ request }: { request: Request }) =>
      readBodyWithLimit(request, FORM_MAX_BYTES * 2)
    expect(await callCapped(read, big())).toHaveLength(FORM_MAX_BYTES + 10)
    const huge = post('a='.padEnd(FORM_MAX_BYTES * 3, 'x'))
    expect(await callCapped(read, huge)).toBeNull()
  })
})

describe('readPayload', () => {
  test('refuses other media types without reading the body', async () => {
    const request = post('a', { 'Content-Type': 'text/plain' })
    expect(await readPayload(request, 100)).toEqual({ kind: 'unsupported-media-type' })
    expect(request.bodyUsed).toBe(false)
  })
})

describe('helpers', () => {
  test('mediaType drops parameters and case', () => {
    expect(mediaType(post(null, { 'Content-Type': 'Application/JSON; charset=UTF-8' }))).toBe(
      'application/json',
    )
    expect(mediaType(post(null))).toBe('')
  })

  test('formDataToObject keeps the first value and treats __proto__ as a plain field', () => {
    const form = new FormData()
    form.append('a', '1')
    form.append('a', '2')
    form.append('__proto__', 'x')
    const object = formDataToObject(form)
    expect(object.a).toBe('1')
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype)
    expect(Object.hasOwn(object, '__proto__')).toBe(true)
  })

  test('jsonNoStore sets Cache-Control and keeps other headers', async () => {
    const response = jsonNoStore({ ok: 1 }, { status: 201, headers: { Allow: 'POST' } })
    expect(response.status).toBe(201)
    expect(response.headers.get('Cache-Control')).toBe('no-store')
    expect(response.headers.get('Allow')).toBe('POST')
    expect(await response.json()).toEqual({ ok: 1 })
  })
})
