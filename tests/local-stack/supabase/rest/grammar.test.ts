import { describe, expect, it } from 'vitest'

import { RestError } from './errors'
import { parseField, parseFilter, parseLogic, parseOrder, parseSelect } from './grammar'
import { applyRangeHeader, parseAccept, parsePrefer, parseQuery } from './request'
import { Params, renderWhere } from './sql'

const field = parseField('name')

describe('PostgREST grammar', () => {
  it('parses in lists with PostgREST quoting', () => {
    expect(parseFilter(field, 'in.(a,"b,c","say \\"hi\\"",(d))')).toMatchObject({
      op: 'in',
      value: ['a', 'b,c', 'say "hi"', '(d)'],
    })
    expect(parseFilter(field, 'not.in.()')).toMatchObject({ negate: true, value: [] })
  })

  it('keeps dots and commas in plain values', () => {
    expect(parseFilter(field, 'eq.a.b,c')).toMatchObject({
      op: 'eq',
      value: 'a.b,c',
      negate: false,
    })
  })

  it('parses nested logic trees, unquoting values', () => {
    const tree = parseLogic('or', false, '(a.eq."x,y",not.and(b.gt.1,c.is.NULL))')
    expect(tree).toEqual({
      kind: 'logic',
      op: 'or',
      negate: false,
      children: [
        { kind: 'filter', field: { column: 'a', path: [] }, negate: false, op: 'eq', value: 'x,y' },
        {
          kind: 'logic',
          op: 'and',
          negate: true,
          children: [
            {
              kind: 'filter',
              field: { column: 'b', path: [] },
              negate: false,
              op: 'gt',
              value: '1',
            },
            {
              kind: 'filter',
              field: { column: 'c', path: [] },
              negate: false,
              op: 'is',
              value: 'null',
            },
          ],
        },
      ],
    })
  })

  it('parses select items and order terms', () => {
    expect(parseSelect('id,total:amount::text,meta->a->>0')).toEqual([
      { kind: 'field', field: { column: 'id', path: [] }, alias: undefined, cast: undefined },
      { kind: 'field', field: { column: 'amount', path: [] }, alias: 'total', cast: 'text' },
      {
        kind: 'field',
        field: {
          column: 'meta',
          path: [
            { arrow: '->', key: 'a' },
            { arrow: '->>', key: 0 },
          ],
        },
        alias: undefined,
        cast: undefined,
      },
    ])
    expect(parseOrder('a.desc.nullslast,b')).toEqual([
      { field: { column: 'a', path: [] }, direction: 'desc', nulls: 'last' },
      { field: { column: 'b', path: [] } },
    ])
  })

  it.each([
    ['a bad identifier', () => parseField('na"me')],
    ['an unknown operator', () => parseFilter(field, 'equals.1')],
    ['a bad is value', () => parseFilter(field, 'is.maybe')],
    ['an unbalanced list', () => parseFilter(field, 'in.("a,b)')],
    ['a bad cast', () => parseSelect('id::text;drop')],
    ['a bad json key', () => parseField("meta->>'x'")],
    ['a bad limit', () => parseQuery(new URLSearchParams('limit=-1'))],
  ])('rejects %s with PGRST100', (_name, parse) => {
    expect(parse).toThrow(RestError)
    try {
      parse()
    } catch (error) {
      expect((error as RestError).body.code).toBe('PGRST100')
    }
  })

  it('renders every value as a bind parameter', () => {
    const params = new Params()
    const plan = parseQuery(
      new URLSearchParams("name=eq.x'--&or=(id.in.(1,2),tags.cs.{a})&title=like.*a*"),
    )
    expect(renderWhere('t', plan.where, params)).toBe(
      ` where "t"."name" = $1 and ("t"."id" in ($2, $3) or "t"."tags" @> $4) and "t"."title" like $5`,
    )
    expect(params.values).toEqual(["x'--", '1', '2', '{a}', '%a%'])
  })

  it('reads Prefer, Accept and Range like PostgREST', () => {
    expect(
      parsePrefer('resolution=merge-duplicates, return=representation,count=planned'),
    ).toMatchObject({
      return: 'representation',
      count: true,
      resolution: 'merge-duplicates',
    })
    expect(parseAccept('application/vnd.pgrst.object+json;nulls=stripped')).toEqual({
      singular: true,
      stripNulls: true,
    })
    expect(() => parseAccept('text/csv')).toThrow(
      'None of these media types are available: text/csv',
    )
    const plan = parseQuery(new URLSearchParams('offset=2&limit=10'))
    applyRangeHeader(plan, '0-4')
    expect(plan).toMatchObject({ offset: 2, limit: 3 })
  })
})
