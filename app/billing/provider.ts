import type { SessionUser } from '~/auth/session.server'
import type { AsUser } from '~/lib/database/database.server'
import type { PaymentWithReferences } from '~/subscriptions/billing-overview.server'
import type { PaymentRow, SubscriptionRow } from '~/subscriptions/types'

import type { Plan } from './plans.server'

export type PortalOutcome = { kind: 'url'; url: string } | { kind: 'no-subscription' }
export type CheckoutOutcome = { kind: 'redirect'; url: string } | { kind: 'already-subscribed' }
export type Unavailable = { kind: 'unavailable'; message: string }

/** A subscription as the provider lists it, with the row fields its events would write. */
export interface ListedSubscription {
  userId: string | null
  subscriptionId: string
  createdAt: string
  fields: Partial<SubscriptionRow>
}

/** A payment the provider holds (a paid invoice or order), recorded as its webhook would. */
export interface ListedPayment {
  /** Its id, in the payment_history column `column`. */
  id: string
  column: `${string}_id`
  /** Through the webhook's own path and the ledger, as event `reconcile:<id>`. */
  record(): Promise<string>
}

/** What a deferred lookup found (an invoice link, a payment reference); only empty columns fill. */
export type PaymentFill = Partial<PaymentRow>

/** What the plan-change page shows before the change is confirmed. */
export interface PlanChangeOffer {
  subscriptionId: string
  current: Pick<Plan, 'key' | 'name' | 'amount' | 'currency' | 'interval'>
  target: Pick<Plan, 'key' | 'name' | 'amount' | 'currency' | 'interval'>
  /** Minor units: the credit for the unused part, the new plan's charge, the next invoice. */
  preview: Record<'credit' | 'charge' | 'nextInvoiceAmount' | 'carriedCredit', number> & {
    nextInvoiceDate: string
  }
}

type PlanChangeStep<T> = (
  row: SubscriptionRow | null,
  userId: string,
  planKey: string,
) => Promise<T | Unavailable>

/**
 * One payment provider, as the rest of the app sees it (docs/architecture.md, "Billing
 * providers"). Its id is the `provider` value of the billing rows and the prefix of its
 * columns (`<id>_customer_id`, `<id>_subscription_id`); its spec routes are its public doors.
 */
export interface BillingProvider {
  id: string
  /** How pages name it: "Subscribe to Pro with <label>". */
  label: string
  /** Hosted pages a form may end on through our redirects (the CSP's form-action). */
  formOrigins: string[]
  /** The setting that points its SDK at another host (an emulator); its origin is allowed too. */
  apiUrlSetting?: string
  /** The pricing page's way into its checkout for a signed-in user: a form post or a link. */
  checkoutDoor(
    plan: Plan,
    user: { id: string; email: string },
  ): { post: string; fields: Record<string, string> } | { href: string }
  /** From /subscribe/<plan>: where the signed-in user goes for the plan's checkout. */
  startCheckout(asUser: AsUser, user: SessionUser, plan: Plan): Promise<CheckoutOutcome>
  /** A fresh portal session for the user's own customer (never reused). */
  openPortal(
    row: SubscriptionRow,
    userId: string,
    options: { paymentMethod?: boolean },
  ): Promise<PortalOutcome>
  /** A change of plan in the app, where the provider's own portal cannot change it. */
  planChange?: {
    offer: PlanChangeStep<{ kind: 'offer'; offer: PlanChangeOffer }>
    change: PlanChangeStep<{ kind: 'changed'; planName: string }>
  }
  /** Every subscription the provider holds for the user, whatever its status (deletion). */
  userSubscriptions(
    row: SubscriptionRow | null,
    userId: string,
  ): Promise<{ id: string; status: string }[]>
  /** Ends a subscription now (no proration refund); one already gone counts as ended. */
  cancelNow(subscriptionId: string): Promise<void>
  /** The account's subscriptions, for reconciliation; with `since`, those changed since then. */
  listSubscriptions(since?: Date): Promise<ListedSubscription[]>
  /** The account's payments, for reconciliation; with `since`, those made since then. */
  listPayments(since?: Date): Promise<ListedPayment[]>
  /** The lookup a payment recorded without its invoice link or references still needs, or null. */
  paymentLookup(
    payment: PaymentWithReferences,
    timeoutMs: number,
  ): (() => Promise<PaymentFill>) | null
  /** The success page: the query parameter naming its checkout, and what the provider says of it. */
  checkout: {
    param: string
    pattern: RegExp
    status(id: string): Promise<'complete' | 'open' | 'failed'>
    /** What it was for: the plan, the amount in words, and the user its metadata names. */
    summary(id: string): Promise<{ plan: string | null; amount: string | null; userId: unknown }>
  }
  /** Its webhook: verify the raw body, then the ledger calls. */
  handleWebhook(request: Request): Promise<Response>
  /** Checked when the server starts: a line for the log, or it throws what is wrong. */
  startupCheck?(): string
  /** Said under a past-due notice when its portal cannot open on the card form. */
  pastDueHelp?: string
}
