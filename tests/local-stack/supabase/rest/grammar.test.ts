import { describe, expect, it } from 'vitest'

import { RestError } from './errors'
import { parseFilter } from './grammar'
import { parseAccept, parsePrefer, parseQuery } from './request'
import { Params, renderWhere } from './sql'

describe('PostgREST grammar', () => {
  it('parses in lists with PostgREST quoting, and keeps dots and commas in plain values', () => {
    expect(parseFilter('name', 'in.(a,"b,c","say \\"hi\\"",(d))')).toMatchObject({
      op: 'in',
      value: ['a', 'b,c', 'say "hi"', '(d)'],
    })
    expect(parseFilter('name', 'not.in.()')).toMatchObject({ negate: true, value: [] })
    expect(parseFilter('name', 'eq.a.b,c')).toEqual({
      column: 'name',
      op: 'eq',
      value: 'a.b,c',
      negate: false,
    })
  })

  it.each([
    ['a bad identifier', 'na"me=eq.1'],
    ['an unknown operator', 'name=equals.1'],
    ['a bad is value', 'name=is.maybe'],
    ['an unbalanced list', 'name=in.("a,b)'],
    ['a bad limit', 'limit=-1'],
    ['embedding', 'select=id,owner(*)'],
    ['a cast', 'select=id::text'],
    ['a JSON path', 'select=meta->>color'],
    ['a pattern operator', 'name=like.*a*'],
    ['a quantified operator', 'id=eq(any).{1,2}'],
    ['full-text search', 'name=fts(english).fruit'],
    ['a logic tree', 'or=(id.eq.1,id.eq.2)'],
    ['an offset', 'offset=2'],
    ['nulls placement', 'order=qty.desc.nullsfirst'],
    ['a filter on an embedded resource', 'owner.id=eq.1'],
  ])('refuses %s with PGRST100', (_name, query) => {
    expect(() => parseQuery(new URLSearchParams(query))).toThrow(
      expect.objectContaining({ body: expect.objectContaining({ code: 'PGRST100' }) }),
    )
  })

  it('renders every value as a bind parameter', () => {
    const params = new Params()
    const plan = parseQuery(new URLSearchParams("name=eq.x'--&id=in.(1,2)&qty=not.is.null"))
    expect(renderWhere('t', plan.where, params)).toBe(
      ` where "t"."name" = $1 and "t"."id" in ($2, $3) and not ("t"."qty" is null)`,
    )
    expect(params.values).toEqual(["x'--", '1', '2'])
  })

  it('reads Prefer and Accept like PostgREST, refusing the preferences it does not emulate', () => {
    expect(
      parsePrefer('resolution=merge-duplicates, return=representation,count=exact,foo=bar'),
    ).toEqual({
      return: 'representation',
      count: true,
      mergeDuplicates: true,
      applied: ['resolution=merge-duplicates', 'return=representation', 'count=exact'],
    })
    for (const preference of ['return=headers-only', 'count=planned', 'missing=default'])
      expect(() => parsePrefer(preference)).toThrow(RestError)
    expect(parseAccept('application/vnd.pgrst.object+json')).toEqual({ singular: true })
    expect(() => parseAccept('text/csv')).toThrow(
      'None of these media types are available: text/csv',
    )
  })
})
