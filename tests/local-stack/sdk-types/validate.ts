import ts from 'typescript'

import type { SdkTypes } from './program'

export type ProblemKind = 'missing' | 'type' | 'unknown'

export interface Problem {
  /** JSONPath-like location, e.g. `$.items.data[0].price.recurring`. */
  path: string
  kind: ProblemKind
  message: string
}

export interface ValidateOptions {
  /** Field names whose subtree may omit fields and hold null (Stripe's `previous_attributes`). */
  partialUnder?: string[]
  /** Declared type names whose wire form is a string (stripe-node's `Decimal`). */
  stringTypes?: string[]
}

interface Context {
  checker: ts.TypeChecker
  options: ValidateOptions
}

export function validate(
  types: SdkTypes,
  value: unknown,
  type: ts.Type,
  options: ValidateOptions = {},
): Problem[] {
  return check({ checker: types.checker, options }, value, type, '$', false)
}

const F = ts.TypeFlags

function check(
  ctx: Context,
  value: unknown,
  type: ts.Type,
  path: string,
  partial: boolean,
): Problem[] {
  const expected = () => [mismatch(ctx, value, type, path)]
  if (partial && value === null) return []
  if (type.flags & (F.Any | F.Unknown)) return []
  if (ctx.options.stringTypes?.includes(type.aliasSymbol?.name ?? type.symbol?.name ?? '')) {
    return typeof value === 'string' ? [] : expected()
  }
  if (type.isUnion()) return checkUnion(ctx, value, type, path, partial)
  if (type.isIntersection()) {
    return type.types.flatMap((member) => check(ctx, value, member, path, partial))
  }
  if (type.flags & F.Null) return value === null ? [] : expected()
  if (type.flags & (F.Undefined | F.Void)) return value === undefined ? [] : expected()
  if (type.isStringLiteral() || type.isNumberLiteral()) {
    return value === type.value ? [] : expected()
  }
  if (type.flags & F.BooleanLiteral) {
    return value === (ctx.checker.typeToString(type) === 'true') ? [] : expected()
  }
  if (type.flags & (F.String | F.TemplateLiteral | F.StringMapping)) {
    return typeof value === 'string' ? [] : expected()
  }
  if (type.flags & (F.Number | F.Enum)) return typeof value === 'number' ? [] : expected()
  if (type.flags & F.Boolean) return typeof value === 'boolean' ? [] : expected()
  if (type.flags & F.NonPrimitive) return isRecord(value) ? [] : expected()
  if (type.flags & F.Object) return checkObject(ctx, value, type, path, partial)
  return []
}

function checkUnion(
  ctx: Context,
  value: unknown,
  type: ts.UnionType,
  path: string,
  partial: boolean,
): Problem[] {
  const candidates = isRecord(value) ? narrow(ctx.checker, value, type.types) : type.types
  let best: Problem[] | undefined
  for (const member of candidates) {
    const problems = check(ctx, value, member, path, partial)
    if (problems.length === 0) return []
    if (!best || problems.length < best.length) best = problems
  }
  return best ?? [mismatch(ctx, value, type, path)]
}

/** The union members an object can be, narrowed by their literal fields when some fit. */
export function narrow(
  checker: ts.TypeChecker,
  value: Record<string, unknown>,
  members: readonly ts.Type[],
): readonly ts.Type[] {
  const objects = members.filter(
    (member) => member.flags & F.Object && !checker.isArrayType(member),
  )
  const fitting = objects.filter((member) => {
    return checker.getPropertiesOfType(member).every((prop) => {
      const literals = literalValues(checker, checker.getTypeOfSymbol(prop))
      if (!literals) return true
      if (prop.name in value) return literals.includes(value[prop.name])
      return (prop.flags & ts.SymbolFlags.Optional) !== 0
    })
  })
  if (fitting.length > 0) return fitting
  return objects.length > 0 ? objects : members
}

/** A literal (union) type's values; undefined otherwise, `boolean` too (it tells none apart). */
function literalValues(checker: ts.TypeChecker, type: ts.Type): unknown[] | undefined {
  const parts = (type.isUnion() ? type.types : [type]).filter(
    (part) => !(part.flags & (F.Undefined | F.Void)),
  )
  const values: unknown[] = []
  for (const part of parts) {
    if (part.isStringLiteral() || part.isNumberLiteral()) values.push(part.value)
    else if (part.flags & F.BooleanLiteral) values.push(checker.typeToString(part) === 'true')
    else return undefined
  }
  if (values.includes(true) && values.includes(false)) return undefined
  return values.length > 0 ? values : undefined
}

function checkObject(
  ctx: Context,
  value: unknown,
  type: ts.Type,
  path: string,
  partial: boolean,
): Problem[] {
  const { checker } = ctx
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    if (!Array.isArray(value)) return [mismatch(ctx, value, type, path)]
    const [element] = checker.getTypeArguments(type as ts.TypeReference)
    return value.flatMap((item, index) => check(ctx, item, element, `${path}[${index}]`, partial))
  }
  if (type.getCallSignatures().length > 0) return []
  const props = checker.getPropertiesOfType(type)
  const index = checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & F.String)
  // `{}` (as in `string & {}`) accepts any value but null and undefined.
  if (props.length === 0 && !index) return value == null ? [mismatch(ctx, value, type, path)] : []
  if (!isRecord(value)) return [mismatch(ctx, value, type, path)]
  const problems: Problem[] = []
  for (const prop of props) {
    const propType = checker.getTypeOfSymbol(prop)
    const at = `${path}.${prop.name}`
    if (!(prop.name in value)) {
      const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0
      if (!optional && !partial) {
        problems.push({
          path: at,
          kind: 'missing',
          message: `missing (${checker.typeToString(propType)})`,
        })
      }
      continue
    }
    const below = partial || (ctx.options.partialUnder?.includes(prop.name) ?? false)
    problems.push(...check(ctx, value[prop.name], propType, at, below))
  }
  const declared = new Set(props.map((prop) => prop.name))
  for (const [key, item] of Object.entries(value)) {
    if (declared.has(key)) continue
    if (index) problems.push(...check(ctx, item, index.type, `${path}.${key}`, partial))
    else problems.push({ path: `${path}.${key}`, kind: 'unknown', message: 'not in the SDK type' })
  }
  return problems
}

function mismatch(ctx: Context, value: unknown, type: ts.Type, path: string): Problem {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value
  const shown = typeof value === 'string' ? ` ${JSON.stringify(value.slice(0, 40))}` : ''
  return {
    path,
    kind: 'type',
    message: `expected ${ctx.checker.typeToString(type)}, got ${got}${shown}`,
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
