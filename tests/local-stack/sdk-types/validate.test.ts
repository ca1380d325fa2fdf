import { describe, expect, it } from 'vitest'

import { compareWithFixture } from '../stripe/contract/compare'
import { loadSdkTypes } from './program'
import { validate } from './validate'

const types = loadSdkTypes(`
type Customer = { id: string; object: 'customer' }
export type Item = {
  id: string
  kind: 'a' | 'b' | (string & {})
  state: 'open' | 'paid'
  count: number | null
  tags: string[]
  meta: { [key: string]: string }
  customer: string | Customer | null
  nested?: { ok: boolean }
  amount: Money
}
export type Shape = { type: 'circle'; radius: number } | { type: 'square'; side: number }
export type Event = { id: string; previous_attributes?: Partial<Item> }
interface Money { readonly brand: unique symbol }
`)

const item = {
  id: 'it_1',
  kind: 'anything',
  state: 'open',
  count: null,
  tags: ['x'],
  meta: { plan: 'pro' },
  customer: 'cus_1',
  amount: '12.50',
}
const options = { stringTypes: ['Money'] }
const check = (value: unknown, name = 'Item') => validate(types, value, types.get(name), options)

describe('validate (a JSON value against an SDK type)', () => {
  it('accepts a conforming value, an optional field left out, an expanded id', () => {
    expect(check(item)).toEqual([])
    expect(check({ ...item, customer: { id: 'cus_1', object: 'customer' } })).toEqual([])
  })

  it('reports missing fields, wrong types, enum values and unknown fields with their path', () => {
    const { count: _count, ...withoutCount } = item
    expect(check(withoutCount)).toEqual([
      { path: '$.count', kind: 'missing', message: 'missing (number | null)' },
    ])
    expect(
      check({ ...item, state: 'late', tags: ['x', 2], meta: { plan: 1 }, extra: true }),
    ).toEqual([
      expect.objectContaining({ path: '$.state', kind: 'type' }),
      expect.objectContaining({ path: '$.tags[1]', kind: 'type' }),
      expect.objectContaining({ path: '$.meta.plan', kind: 'type' }),
      { path: '$.extra', kind: 'unknown', message: 'not in the SDK type' },
    ])
    expect(check({ ...item, amount: 12.5 })).toEqual([
      expect.objectContaining({ path: '$.amount', kind: 'type' }),
    ])
  })

  it('narrows a union by its literal field', () => {
    expect(check({ type: 'square', side: 2 }, 'Shape')).toEqual([])
    expect(check({ type: 'square', radius: 2 }, 'Shape')).toEqual([
      expect.objectContaining({ path: '$.side', kind: 'missing' }),
      expect.objectContaining({ path: '$.radius', kind: 'unknown' }),
    ])
  })

  it('lets partialUnder subtrees omit fields and hold null', () => {
    const event = { id: 'evt_1', previous_attributes: { nested: {}, meta: { plan: null } } }
    expect(check(event, 'Event')).toEqual([
      expect.objectContaining({ path: '$.previous_attributes.meta.plan', kind: 'type' }),
      expect.objectContaining({ path: '$.previous_attributes.nested.ok', kind: 'missing' }),
    ])
    const partial = { partialUnder: ['previous_attributes'] }
    expect(validate(types, event, types.get('Event'), partial)).toEqual([])
  })
})

describe('compareWithFixture (an object against a published example of its type)', () => {
  const fixture = {
    id: 'it_x',
    count: 3,
    customer: { id: 'cus_x', object: 'customer' },
    nested: { ok: true },
    retired: 'a field this version removed',
  }

  it('counts matched fields, allows null where the type does and ids for expandable fields', () => {
    expect(compareWithFixture(types, fixture, item, types.get('Item'))).toEqual({
      total: 4,
      matched: 3,
      mismatches: ['$.nested: missing'],
      notInPinnedVersion: ['$.retired'],
    })
    const full = { ...item, nested: { ok: false } }
    expect(compareWithFixture(types, fixture, full, types.get('Item'))).toMatchObject({
      total: 5,
      matched: 5,
    })
  })

  it('refuses another JSON type, and an expansion nobody asked for', () => {
    const wrong = { ...item, count: '3', customer: { id: 'cus_1', object: 'customer' } }
    expect(compareWithFixture(types, fixture, wrong, types.get('Item')).mismatches).toEqual([
      '$.count: the fixture has number, the emulator string',
      '$.customer: expanded, though no request asked for it',
      '$.nested: missing',
    ])
  })
})
