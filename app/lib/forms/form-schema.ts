import { parse, type Submission } from '@conform-to/react'
import { type core, safeParse } from 'zod/mini'

/**
 * Form schemas (`zod/mini`) in the browser, without conform's zod adapter, whose automatic
 * coercion imports the whole of classic zod. The actions keep `parseWithZod` from
 * `@conform-to/zod/v4` on the same schemas: the server is the source of truth, this is the
 * instant preview of its answer. Pages load this module after they have loaded, through
 * `useFormValidation` (form-validation.ts), never with a static import (see
 * docs/performance.md, "First-load JavaScript").
 */

/**
 * What the server's `parseWithZod` does to a form value before validation, for the flat
 * forms of this app (strings, checkboxes, one file): an empty text and an empty file input
 * count as missing.
 */
function stripEmpty(value: unknown): unknown {
  if (value === '') return undefined
  if (typeof File !== 'undefined' && value instanceof File)
    return value.name === '' && value.size === 0 ? undefined : value
  if (Array.isArray(value)) return value.map(stripEmpty)
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripEmpty(item)]))
  return value
}

/** conform's name of a field from a zod issue path: `a.b[0]`; the form itself is `''`. */
function fieldName(path: readonly PropertyKey[]) {
  return path.reduce<string>((name, segment) => {
    if (typeof segment === 'number') return `${name}[${segment}]`
    const key = String(segment)
    return name === '' ? key : `${name}.${key}`
  }, '')
}

/**
 * Validates a form in the browser with a form schema, answering like `parseWithZod` (for
 * `useForm`'s `onValidate`): the same values, the same messages under the same names.
 */
export function parseWithSchema<Schema extends core.$ZodType>(
  formData: FormData,
  options: { schema: Schema },
): Submission<core.input<Schema>, string[], core.output<Schema>> {
  return parse<core.output<Schema>, string[]>(formData, {
    resolve(payload) {
      const result = safeParse(options.schema, stripEmpty(payload))
      if (result.success) return { value: result.data }
      const error: Record<string, string[]> = {}
      for (const issue of result.error.issues)
        (error[fieldName(issue.path)] ??= []).push(issue.message)
      return { error }
    },
  }) as Submission<core.input<Schema>, string[], core.output<Schema>>
}
