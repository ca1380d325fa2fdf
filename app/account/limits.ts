export const DELETE_CONFIRMATION = 'DELETE'

/** Said while an email change waits for its links (the mails say the same). */
export const EMAIL_CHANGES_ONCE = 'Your email changes once both links are opened.'
