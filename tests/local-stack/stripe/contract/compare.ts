/**
 * Every field of Stripe's published fixture (nested too) present with the same JSON type;
 * null where the type allows it, an id where the fixture shows an expandable field expanded.
 */
import ts from 'typescript'

import type { SdkTypes } from '../../sdk-types/program'
import { narrow } from '../../sdk-types/validate'

export interface Coverage {
  /** Fixture fields, nested ones included, that exist at the pinned API version. */
  total: number
  matched: number
  /** Fixture fields the emulator's object lacks or gives another JSON type. */
  mismatches: string[]
  /** Fixture fields the pinned API version no longer has (the fixtures are older). */
  notInPinnedVersion: string[]
}

/** Deep enough for `lines.data[0].parent.subscription_item_details.proration_details`. */
const MAX_DEPTH = 8

type JsonObject = Record<string, unknown>

export function compareWithFixture(
  types: SdkTypes,
  fixture: JsonObject,
  actual: JsonObject,
  type: ts.Type,
): Coverage {
  const coverage: Coverage = { total: 0, matched: 0, mismatches: [], notInPinnedVersion: [] }
  walk(types.checker, coverage, fixture, actual, type, '$', 0)
  return coverage
}

function walk(
  checker: ts.TypeChecker,
  coverage: Coverage,
  fixture: JsonObject,
  actual: JsonObject,
  type: ts.Type | undefined,
  path: string,
  depth: number,
) {
  const objectType = type && objectMember(checker, type, actual)
  for (const [key, expected] of Object.entries(fixture)) {
    const at = `${path}.${key}`
    const symbol = objectType && checker.getPropertyOfType(objectType, key)
    if (objectType && !symbol) {
      coverage.notInPinnedVersion.push(at)
      continue
    }
    const propType = symbol && checker.getTypeOfSymbol(symbol)
    coverage.total += 1
    if (!(key in actual)) {
      coverage.mismatches.push(`${at}: missing`)
      continue
    }
    const value = actual[key]
    const want = kind(expected)
    const got = kind(value)
    const nullable = got === 'null' && accepts(propType, ts.TypeFlags.Null)
    const expandable = accepts(propType, ts.TypeFlags.String) && want === 'object'
    if (got === 'object' && accepts(propType, ts.TypeFlags.String)) {
      coverage.mismatches.push(`${at}: expanded, though no request asked for it`)
      continue
    }
    if (want !== got && want !== 'null' && !nullable && !(expandable && got === 'string')) {
      coverage.mismatches.push(`${at}: the fixture has ${want}, the emulator ${got}`)
      continue
    }
    coverage.matched += 1
    if (want !== got || depth >= MAX_DEPTH) continue
    if (want === 'object') {
      walk(checker, coverage, expected as JsonObject, value as JsonObject, propType, at, depth + 1)
    }
    if (want === 'array') descend(checker, coverage, expected, value, propType, at, depth)
  }
}

/** Arrays of objects: the fixture's first element against the emulator's first. */
function descend(
  checker: ts.TypeChecker,
  coverage: Coverage,
  expected: unknown,
  value: unknown,
  type: ts.Type | undefined,
  path: string,
  depth: number,
) {
  const [first] = expected as unknown[]
  const [mine] = value as unknown[]
  if (kind(first) !== 'object' || kind(mine) !== 'object') return
  const element = type && elementType(checker, type)
  walk(checker, coverage, first as JsonObject, mine as JsonObject, element, `${path}[0]`, depth + 1)
}

function kind(value: unknown) {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'array'
  return typeof value
}

/** True when the type (or a member of its union) admits the given primitive. */
function accepts(type: ts.Type | undefined, flag: ts.TypeFlags) {
  if (!type) return false
  const members = type.isUnion() ? type.types : [type]
  return members.some((member) => (member.flags & (flag | ts.TypeFlags.Any)) !== 0)
}

/** The object type a value of `type` is, e.g. `Customer` of `string | Customer | null`. */
function objectMember(checker: ts.TypeChecker, type: ts.Type, value: JsonObject) {
  const members = (type.isUnion() ? type.types : [type]).filter(
    (member) => member.flags & ts.TypeFlags.Object && !checker.isArrayType(member),
  )
  return narrow(checker, value, members)[0]
}

function elementType(checker: ts.TypeChecker, type: ts.Type) {
  const arrays = (type.isUnion() ? type.types : [type]).filter((member) =>
    checker.isArrayType(member),
  )
  return arrays.length > 0 ? checker.getTypeArguments(arrays[0] as ts.TypeReference)[0] : undefined
}
