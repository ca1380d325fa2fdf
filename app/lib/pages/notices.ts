// Only these `?notice=<key>` keys (no script needed) show anything: never arbitrary words.
const NOTICES = {
  'already-subscribed': {
    tone: 'info',
    text: 'You already have a subscription. Change or cancel it here.',
  },
  'checkout-failed': {
    tone: 'error',
    text: 'We could not start the checkout. You have not been charged; please try again in a moment.',
  },
  'unknown-plan': {
    tone: 'error',
    text: 'That plan does not exist (any more). Choose one of the plans below.',
  },
  'portal-failed': {
    tone: 'error',
    text: 'The billing portal is not available right now. Please try again in a moment.',
  },
  'recovery-link-needed': {
    tone: 'info',
    text: 'To choose a new password, use the link we email you. Signed in and know your password? Change it in Account settings.',
  },
  'plan-resumed': { tone: 'success', text: 'Your subscription is resumed: it renews as before.' },
  'invoice-paid': { tone: 'success', text: 'Thank you: your payment went through.' },
  'signed-out': { tone: 'success', text: 'You have been signed out.' },
  'signed-out-everywhere': {
    tone: 'success',
    text: 'You have been signed out on every device and browser. Sign in again to continue here.',
  },
  'password-updated': { tone: 'success', text: 'Your password has been updated.' },
  'email-confirmed': { tone: 'success', text: 'Your email address is confirmed. Welcome!' },
  'confirmed-sign-in': {
    tone: 'success',
    text: 'Your email address is confirmed. Sign in to continue: if you confirmed it on another device, with the password you chose there.',
  },
  'choose-password': {
    tone: 'info',
    text: 'Your email address is confirmed. Now choose the password you will sign in with: a password set for it before, from another browser, no longer works.',
  },
  'email-change-half-confirmed': {
    tone: 'info',
    text: 'One of the two links is opened. Sign in to see which is left: your email changes once both links are opened.',
  },
  'session-ended-elsewhere': {
    tone: 'info',
    text: 'You were signed out here because your session was ended from another device (for example with “Sign out of all sessions”). Sign in again to continue.',
  },
  'sign-in-to-continue': {
    tone: 'info',
    text: 'Sign in to continue where you left off.',
  },
} as const satisfies Record<string, { tone: 'info' | 'success' | 'error'; text: string }>

export type NoticeKey = keyof typeof NOTICES

export function noticeByKey(key: NoticeKey) {
  return NOTICES[key]
}

export function noticeFor(params: URLSearchParams) {
  const key = params.get('notice')
  return key && Object.hasOwn(NOTICES, key) ? NOTICES[key as NoticeKey] : null
}
