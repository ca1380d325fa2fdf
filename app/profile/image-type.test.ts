import { describe, expect, it } from 'vitest'

import { AVATAR_EXTENSIONS, isOwnAvatarPath, sniffImageType } from './image-type'

const bytes = (...values: number[]) => new Uint8Array([...values, 0, 0, 0, 0, 0, 0, 0, 0])

describe('sniffImageType', () => {
  it.each([
    [bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a), 'image/png'],
    [bytes(0xff, 0xd8, 0xff, 0xe0), 'image/jpeg'],
    [bytes(0x47, 0x49, 0x46, 0x38, 0x39, 0x61), 'image/gif'],
    [bytes(0x47, 0x49, 0x46, 0x38, 0x37, 0x61), 'image/gif'],
    [bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50), 'image/webp'],
  ])('recognises %#', (input, type) => {
    expect(sniffImageType(input)).toBe(type)
  })

  it.each([
    ['text', new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')],
    ['RIFF that is not WebP', bytes(0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x41, 0x56, 0x45)],
    ['empty', new Uint8Array()],
    ['a truncated PNG signature', new Uint8Array([0x89, 0x50, 0x4e])],
  ])('refuses %s', (_label, input) => {
    expect(sniffImageType(input)).toBeNull()
  })

  it('names files by the proven type', () => {
    expect(AVATAR_EXTENSIONS['image/jpeg']).toBe('jpg')
    expect(AVATAR_EXTENSIONS['image/webp']).toBe('webp')
  })
})

describe('isOwnAvatarPath', () => {
  const me = '7b0c6f5e-0000-4000-8000-000000000001'
  it('accepts a file directly in the user’s folder', () => {
    expect(isOwnAvatarPath(`${me}/avatar-1.png`, me)).toBe(true)
  })
  it.each([
    null,
    '',
    'someone-else/avatar.png',
    `${me}x/avatar.png`,
    `${me}/nested/avatar.png`,
    `other/${me}/avatar.png`,
  ])('refuses %j', (path) => {
    expect(isOwnAvatarPath(path, me)).toBe(false)
  })
})
