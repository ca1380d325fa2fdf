import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import { AVATAR_MAX_BYTES } from './limits'
import { AvatarSchema, DisplayNameSchema } from './schemas'

/** Field errors of a failed submission (a successful one has none). */
function errorsOf(submission: object) {
  return 'error' in submission
    ? (submission.error as Record<string, string[] | null> | undefined)
    : undefined
}

function form(entries: Record<string, string | File>) {
  const data = new FormData()
  for (const [key, value] of Object.entries(entries)) data.append(key, value)
  return data
}

describe('DisplayNameSchema', () => {
  it('trims and accepts a name', () => {
    const result = parseWithZod(form({ displayName: '  Ada Lovelace ' }), {
      schema: DisplayNameSchema,
    })
    expect(result.status === 'success' && result.value).toEqual({ displayName: 'Ada Lovelace' })
  })

  it.each([
    ['', 'Enter the name to show'],
    ['   ', 'Enter the name to show'],
    ['x'.repeat(81), 'Use at most 80 characters'],
  ])('refuses %j', (displayName, message) => {
    const result = parseWithZod(form({ displayName }), { schema: DisplayNameSchema })
    expect(result.status).toBe('error')
    expect(errorsOf(result)?.displayName).toEqual([message])
  })
})

describe('AvatarSchema', () => {
  const image = (size: number, type = 'image/png') =>
    new File([new Uint8Array(size)], 'a.png', { type })

  it('accepts an image at the size limit', () => {
    const result = parseWithZod(form({ avatar: image(AVATAR_MAX_BYTES) }), { schema: AvatarSchema })
    expect(result.status).toBe('success')
  })

  it('refuses one byte over the limit', () => {
    const result = parseWithZod(form({ avatar: image(AVATAR_MAX_BYTES + 1) }), {
      schema: AvatarSchema,
    })
    expect(errorsOf(result)?.avatar).toEqual(['The image must be 2 MB or smaller'])
  })

  it('refuses a type outside the bucket’s list', () => {
    const result = parseWithZod(form({ avatar: image(10, 'image/svg+xml') }), {
      schema: AvatarSchema,
    })
    expect(errorsOf(result)?.avatar).toEqual(['Upload a PNG, JPEG, WebP or GIF image'])
  })

  it('asks for a file when none was chosen (an empty file input)', () => {
    const result = parseWithZod(
      form({ avatar: new File([], '', { type: 'application/octet-stream' }) }),
      {
        schema: AvatarSchema,
      },
    )
    expect(errorsOf(result)?.avatar).toEqual(['Choose an image to upload'])
  })

  it('is required by the schema, but the file input gets no constraint', () => {
    // The avatar form passes no `constraint`: "no file chosen" is answered with the
    // schema's message (in the browser, or by the action with JavaScript off).
    expect(getSchemaConstraint(AvatarSchema)).toEqual({ avatar: { required: true } })
    expect(getSchemaConstraint(DisplayNameSchema)).toEqual({
      displayName: { required: true, minLength: 1, maxLength: 80 },
    })
  })
})
