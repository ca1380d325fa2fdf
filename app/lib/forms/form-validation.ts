import { parse, type Submission } from '@conform-to/react'
import { useEffect, useRef } from 'react'
import type { core } from 'zod/mini'

type Validate<Schema extends core.$ZodType> = (
  formData: FormData,
) => Submission<core.input<Schema>, string[], core.output<Schema>>

/**
 * `useForm`'s `onValidate` for a form schema, without zod in the page's first load: the
 * schema is imported once the page has hydrated (`loadSchema` must use a dynamic `import()`);
 * until then a post goes to the action, which validates every post anyway. Never a
 * validation request to the server: several actions are rate limited.
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
 * Every form validates on submit, then on input. Never on blur: a message appearing as a
 * field loses focus moves the button between mousedown and click, and the click is lost.
 */
export const VALIDATE_ON = 'onSubmit' as const
export const REVALIDATE_ON = 'onInput' as const
