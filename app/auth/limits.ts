/**
 * The auth forms' length limits, read by `schemas.ts` and by the pages' hints; kept out of
 * the schema module so a page can show them without loading zod.
 */
export const EMAIL_MAX_LENGTH = 254
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 72
export const REDIRECT_TO_MAX_LENGTH = 512
