import { parse, type Submission, useForm } from '@conform-to/react'
import { useEffect, useRef } from 'react'
import type { core } from 'zod/mini'

type Submitter = { formNoValidate: boolean } | null
type Validate<Schema extends core.$ZodType> = (
  formData: FormData,
) => Submission<core.input<Schema>, string[], core.output<Schema>>

/**
 * `useForm`'s `onValidate`, without zod in the first load: `loadSchema` (a dynamic `import()`)
 * runs after hydration. Never a validation request to the server: several actions are limited.
 */
function useFormValidation<Schema extends core.$ZodType>(loadSchema: () => Promise<Schema>) {
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
  return ({ formData, submitter }: { formData: FormData; submitter: Submitter }) =>
    (!submitter?.formNoValidate && validate.current?.(formData)) ||
    // No opinion yet, or a formNoValidate button: a post goes to the action, which validates it.
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

/** `useForm` with the timing above and `useFormValidation`'s check of `loadSchema`. */
export function useValidatedForm<Schema extends core.$ZodObject>(
  options: Omit<
    Parameters<typeof useForm<core.input<Schema>, core.output<Schema>>>[0],
    'onValidate'
  >,
  loadSchema: () => Promise<Schema>,
) {
  const onValidate = useFormValidation(loadSchema)
  return useForm({
    shouldValidate: VALIDATE_ON,
    shouldRevalidate: REVALIDATE_ON,
    ...options,
    onValidate,
  })
}
