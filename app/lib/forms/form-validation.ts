import { parse, type Submission } from '@conform-to/react'
import { useEffect, useRef } from 'react'
import type { core } from 'zod/mini'

type Validate<Schema extends core.$ZodType> = (
  formData: FormData,
) => Submission<core.input<Schema>, string[], core.output<Schema>>

/**
 * `useForm`'s `onValidate` for a form schema, without zod in the page's first load: the
 * schema and zod/mini (about 7 KB gzip) are imported once the page has hydrated, and from
 * then on conform validates in the browser on blur, input and submit, with the schema the
 * action uses. Until then (or if the import fails), nothing is checked in the browser and a
 * post goes to the action, which validates every post anyway. Never a validation request
 * to the server on blur or input: several actions are rate limited.
 *
 * `loadSchema` must use a dynamic `import()`: a static import of a schema module would put
 * zod back into the page's first load (`npm run bench:bundle` would catch it).
 */
export function useFormValidation<Schema extends core.$ZodType>(loadSchema: () => Promise<Schema>) {
  const validate = useRef<Validate<Schema> | null>(null)
  const load = useRef(loadSchema)
  useEffect(() => {
    let mounted = true
    Promise.all([import('./form-schema'), load.current()]).then(
      ([{ parseWithSchema }, schema]) => {
        if (mounted) validate.current = (formData) => parseWithSchema(formData, { schema })
      },
      // Offline, or a deploy replaced the chunk: the action still validates every post.
      () => {},
    )
    return () => {
      mounted = false
    }
  }, [])
  return ({ formData }: { formData: FormData }) =>
    validate.current?.(formData) ??
    // No opinion yet: a post goes to the action, which validates it; blur and input show nothing.
    (parse(formData, { resolve: (payload) => ({ value: payload }) }) as ReturnType<
      Validate<Schema>
    >)
}

/*
 * `useForm`'s `shouldValidate` and `shouldRevalidate` for every form: first on submit, then
 * on every input. Never on blur: a message that appears when a field loses focus moves the
 * button under the pointer between mousedown and click, and the first click on "Send
 * message" or "Create account" is lost. On submit, the click either sends the form or shows
 * what is missing, and from then on each message goes away as the field is fixed, before the
 * next click.
 */
export const VALIDATE_ON = 'onSubmit' as const
export const REVALIDATE_ON = 'onInput' as const
