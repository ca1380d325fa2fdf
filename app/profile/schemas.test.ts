import { parseWithZod } from '@conform-to/zod/v4'
import { describe, expect, it } from 'vitest'

import { getSchemaConstraint } from '~/lib/forms/schema-constraint'

import { AVATAR_MAX_BYTES } from './limits'
import { AvatarSchema, DisplayNameSchema } from './schemas'

function parse(
  schema: typeof AvatarSchema | typeof DisplayNameSchema,
  entries: [string, string | File],
) {
  const data = new FormData()
  data.append(...entries)
  return parseWithZod(data, { schema })
}

const image = (size: number, type = 'image/png') =>
  new File([new Uint8Array(size)], 'a.png', { type })

describe('DisplayNameSchema and AvatarSchema', () => {
  it('trim and accept a name, and accept an image at the size limit', () => {
    const name = parse(DisplayNameSchema, ['displayName', '  Ada Lovelace '])
    expect(name.status === 'success' && name.value).toEqual({ displayName: 'Ada Lovelace' })
    expect(parse(AvatarSchema, ['avatar', image(AVATAR_MAX_BYTES)]).status).toBe('success')
  })

  it.each<[string, string | File, string]>([
    ['displayName', '', 'Enter the name to show'],
    ['displayName', '   ', 'Enter the name to show'],
    ['displayName', 'x'.repeat(81), 'Use at most 80 characters'],
    ['avatar', image(AVATAR_MAX_BYTES + 1), 'The image must be 2 MB or smaller'],
    ['avatar', image(10, 'image/svg+xml'), 'Upload a PNG, JPEG, WebP or GIF image'],
    // An empty file input: no file chosen.
    ['avatar', new File([], '', { type: 'application/octet-stream' }), 'Choose an image to upload'],
  ])('refuse %s %j', (field, value, message) => {
    const result = parse(field === 'avatar' ? AvatarSchema : DisplayNameSchema, [field, value])
    expect(result.status === 'error' && result.error?.[field]).toEqual([message])
  })

  it('the avatar is required by the schema, but the file input gets no constraint', () => {
    // The avatar form passes no `constraint`: "no file chosen" is answered with the
    // schema's message (in the browser, or by the action with JavaScript off).
    expect(getSchemaConstraint(AvatarSchema)).toEqual({ avatar: { required: true } })
    expect(getSchemaConstraint(DisplayNameSchema)).toEqual({
      displayName: { required: true, minLength: 1, maxLength: 80 },
    })
  })
})
