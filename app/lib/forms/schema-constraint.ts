import type { core } from 'zod/mini'

/** The HTML constraint attributes of one field (`useForm`'s `constraint`). */
export interface FieldConstraint {
  required: boolean
  minLength?: number
  maxLength?: number
}

export type FormConstraint = Record<string, FieldConstraint>

interface LengthCheckDef {
  check: string
  minimum?: number
  maximum?: number
  length?: number
}

function describeField(schema: core.$ZodType, constraint: FieldConstraint) {
  const def = schema._zod.def
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'prefault':
      constraint.required = false
      describeField((def as core.$ZodOptionalDef).innerType, constraint)
      return
    case 'nullable':
      describeField((def as core.$ZodNullableDef).innerType, constraint)
      return
    case 'pipe':
      describeField((def as core.$ZodPipeDef).in, constraint)
      describeField((def as core.$ZodPipeDef).out, constraint)
      return
    case 'string':
      for (const check of def.checks ?? []) {
        const { check: kind, minimum, maximum, length } = check._zod.def as LengthCheckDef
        const min = kind === 'min_length' ? minimum : kind === 'length_equals' ? length : undefined
        const max = kind === 'max_length' ? maximum : kind === 'length_equals' ? length : undefined
        if (min !== undefined) constraint.minLength = Math.max(constraint.minLength ?? 0, min)
        if (max !== undefined) constraint.maxLength = Math.min(constraint.maxLength ?? max, max)
      }
      return
  }
}

/**
 * An object schema's HTML constraints, for the loader to hand the form, so zod stays out of the
 * first load (conform's `getZodConstraint` reads only `required` from `zod/mini`).
 */
export function getSchemaConstraint(schema: core.$ZodObject): FormConstraint {
  const constraint: FormConstraint = {}
  for (const [name, field] of Object.entries(schema._zod.def.shape)) {
    const described: FieldConstraint = { required: true }
    describeField(field, described)
    constraint[name] = described
  }
  return constraint
}
