import { parse, type Submission } from '@conform-to/react'
import { type core, safeParse } from 'zod/mini'

/**
 * Form schemas in the browser without conform's zod adapter, whose coercion imports all of
 * classic zod; the actions keep `parseWithZod`. Loaded after hydration by `useFormValidation`.
 */

/** As the server's `parseWithZod` before validation: an empty text or file input is missing. */
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

/** Validates a form in the browser (`onValidate`), answering exactly like `parseWithZod`. */
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
