import * as z from 'zod/mini'

/** A NUL, or half of a UTF-16 surrogate pair: PostgreSQL stores neither. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?:^|[^\ud800-\udbff])[\udc00-\udfff]/

/** The string of every text the app stores: those are refused, as the field's own error. */
export const storedText = (params?: Parameters<typeof z.string>[0]) =>
  z
    .string(params)
    .check(
      z.refine((value) => !UNSTORABLE.test(value), 'This text has a character we cannot store'),
    )
