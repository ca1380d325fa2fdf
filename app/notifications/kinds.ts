/** The kinds of email the product sends, each with its own preference in user_profiles. */
export const NOTIFICATION_KINDS = ['product_updates', 'billing', 'security'] as const
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number]

export const PREFERENCE_COLUMNS = {
  product_updates: 'notify_product_updates',
  billing: 'notify_billing',
  security: 'notify_security',
} as const satisfies Record<NotificationKind, string>

export const NOTIFICATION_LABELS = {
  product_updates: {
    label: 'Product updates',
    description:
      'New features and occasional news, at most a couple of emails a month. Off unless you turn it on.',
  },
  billing: {
    label: 'Billing emails',
    description:
      'Payment receipts, failed payments, plan changes, and when a subscription is canceled, resumed or ends.',
  },
  security: {
    label: 'Security alerts',
    description:
      'A heads-up when your password or email address changes, every session is signed out, or someone keeps guessing your password.',
  },
} satisfies Record<NotificationKind, { label: string; description: string }>

/**
 * The outbox's mails, each under one kind's preference (as `enqueue_notification` maps them),
 * or none (null): the contact form's mails, to the team and to the sender who asked.
 */
export const MAIL_KINDS = {
  payment_receipt: 'billing',
  payment_failed: 'billing',
  subscription_canceled: 'billing',
  subscription_ended: 'billing',
  plan_changed: 'billing',
  subscription_resumed: 'billing',
  password_changed: 'security',
  email_changed: 'security',
  signed_out_everywhere: 'security',
  attempts_limited: 'security',
  // Sent whatever the preferences were: they were deleted with the account it is about.
  account_deleted: 'security',
  payment_refunded: 'billing',
  // Not a mail: the address given to the providers' customers (app/billing/customer-email.server.ts).
  customer_email: 'billing',
  contact_message: null,
  contact_receipt: null,
} as const satisfies Record<string, NotificationKind | null>
export type MailKind = keyof typeof MAIL_KINDS
