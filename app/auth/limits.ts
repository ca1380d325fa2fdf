/** Out of `schemas.ts`, so a page can show the limits without loading zod. */
export const EMAIL_MAX_LENGTH = 254
export const PASSWORD_MIN_LENGTH = 8
export const PASSWORD_MAX_LENGTH = 72
export const REDIRECT_TO_MAX_LENGTH = 512
