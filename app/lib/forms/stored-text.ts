import * as z from 'zod/mini'

/** Text without a NUL or half a UTF-16 surrogate pair: PostgreSQL stores neither. */
const STORABLE = /^(?:[^\0\ud800-\udfff]|[\ud800-\udbff][\udc00-\udfff])*$/

/** The string of every text the app stores: any other is the field's own error, never a 500. */
export const storedText = (params?: Parameters<typeof z.string>[0]) =>
  z.string(params).check(z.regex(STORABLE, 'This text has a character we cannot store'))
