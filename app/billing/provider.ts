import type { SessionUser } from '~/auth/session.server'
import type { AsUser } from '~/lib/database/database.server'
import type { PaymentWithReferences } from '~/subscriptions/billing-overview.server'
import type { PaymentRow, SubscriptionRow } from '~/subscriptions/types'

import type { nextInvoice } from './plans'
import type { Plan } from './plans.server'

type PortalOutcome = { kind: 'url'; url: string } | { kind: 'no-subscription' }
export type Unavailable = { kind: 'unavailable'; message: string }

/** A subscription as the provider lists it (its user as named), with the row fields its events write. */
export interface ListedSubscription {
  userId: string | null
  subscriptionId: string
  createdAt: string
  fields: Partial<SubscriptionRow>
}

/** A paid invoice or order (its `provider_payment_id`), recorded as its webhook would. */
export interface ListedPayment {
  id: string
  record(): Promise<string>
}

/** What a deferred lookup found (an invoice link, a payment reference); only empty columns fill. */
export type PaymentFill = Partial<PaymentRow>

/** Its webhook's `paths` and the `events` the app applies; faults are `false` where a check passed. */
export interface Preflight {
  paths: string[]
  events: string[]
  endpoints: { id: string; url: string; events: string[]; faults: (string | false)[] }[]
  faults?: (string | false)[]
}

export interface PlanChangeOffer {
  subscriptionId: string
  current: Pick<Plan, 'key' | 'name' | 'amount' | 'currency' | 'interval'>
  target: Pick<Plan, 'key' | 'name' | 'amount' | 'currency' | 'interval'>
  preview: ReturnType<typeof nextInvoice>
}

/** A provider's answer to a change: the row fields it implies, at the provider's time. */
type Answer = { fields: Partial<SubscriptionRow>; occurredAt: string }

type Row = SubscriptionRow | null

type PlanChangeStep<T> = (row: Row, userId: string, planKey: string) => Promise<T | Unavailable>

/** One payment provider, as the rest of the app sees it (docs/architecture.md, "Billing providers"). */
export interface BillingProvider {
  id: string
  /** How pages say it pays, in plain words: "Pay <label>" (by card, with …). */
  label: string
  /** Hosted pages a form may end on through our redirects (the CSP's form-action). */
  formOrigins: string[]
  /** Settings naming other hosts of those pages (an emulator's, a custom domain): allowed too. */
  originSettings?: string[]
  /** The pricing page's way into its checkout for a signed-in user: a form post or a link. */
  checkoutDoor(
    plan: Plan,
    user: { id: string; email: string },
  ): { post: string; fields: Record<string, string> } | { href: string }
  /** From /subscribe/<plan>: the plan's checkout, or the billing page for a live subscriber. */
  startCheckout(asUser: AsUser, user: SessionUser, plan: Plan): Promise<string>
  /** A fresh portal session for the user's own customer (never reused). */
  openPortal(
    row: SubscriptionRow,
    userId: string,
    options: { paymentMethod?: boolean; plan?: Plan },
  ): Promise<PortalOutcome>
  /** A change of plan in the app, where the provider's own portal cannot change it. */
  planChange?: {
    offer: PlanChangeStep<{ kind: 'offer'; offer: PlanChangeOffer }>
    change: PlanChangeStep<{ kind: 'changed'; planName: string }>
  }
  /** Every subscription the provider holds for the user, whatever its status (deletion). */
  userSubscriptions(row: Row, userId: string): Promise<{ id: string; status: string }[]>
  /** Sets its end at the period end (true) or withdraws that (false): the answer's row fields and time. */
  scheduleCancel(subscriptionId: string, cancel: boolean): Promise<Answer>
  /** Pays a past-due subscription's open invoice with the saved card (declined: throws a 402). */
  payOpenInvoice?(subscriptionId: string): Promise<Answer>
  /** How it ends a subscription (deletion): `now`, or at the period end where that is all it can. */
  ends: 'now' | 'period-end'
  /** Where it `ends` now: ends one now (no proration refund); one already gone counts as ended. */
  cancelNow?(subscriptionId: string): Promise<void>
  /** Account deletion, first: no checkout the user opened can be paid any more. */
  expireCheckouts(row: Row, user: { id: string; email: string }): Promise<void>
  /** For reconciliation: the account's subscriptions and payments (with `since`, changed since). */
  listSubscriptions(since?: Date): Promise<ListedSubscription[]>
  listPayments(since?: Date): Promise<ListedPayment[]>
  /** A confirmed email change reaches the user's customers (receipts go to the new address). */
  updateCustomerEmail?(row: Row, userId: string, email: { old: string; new: string }): Promise<void>
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
  /** `npm run preflight`: its account's setup, read with its keys; none where there is none. */
  preflight?(): Promise<Preflight>
  /** Said under a past-due notice when its portal cannot open on the card form. */
  pastDueHelp?: string
}
