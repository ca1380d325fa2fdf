// The soak's seeded event stream and its model: from the stream alone, the rows the ledger
// must end with. Subscriptions: a user's events in time order (ties by lifecycle rank), the
// rules of `apply_subscription_event`; payments: one row per Stripe invoice, per Polar order
// and status, a refund row with the largest refunded total. Pure: the runner creates the
// Polar objects (order.paid fetches the order's invoice from the emulator).
import { catalogPlan } from '../../app/billing/plans.test-support'
import {
  polarOrderPayment,
  PolarOrderSchema,
  polarRefundPayment,
  polarSubscriptionFields,
  PolarSubscriptionSchema,
} from '../../app/billing/polar/events'
import {
  invoicePayment,
  StripeInvoiceSchema,
  StripeSubscriptionSchema,
  subscriptionFields,
} from '../../app/billing/stripe/events'
import { polarEvent } from '../../tests/integration/polar-fixtures'
import { stripeEvent, subscriptionObject } from '../../tests/integration/stripe-fixtures'

type Random = ReturnType<typeof createRandom>

/** mulberry32: small, fast, good enough to make a stream reproducible from a seed. */
export function createRandom(seed: number) {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)],
  }
}

type Provider = 'stripe' | 'polar'
type Fields = Record<string, unknown>

/** `id`: Stripe's event id or Polar's webhook-id; `time` in ms (Stripe: whole seconds). */
export interface StreamEvent {
  provider: Provider
  id: string
  type: string
  user: number
  time: number
  body: string
  effect:
    | { kind: 'subscription'; subKey: string; fields: Fields }
    | { kind: 'payment'; key: string; row: Fields }
    | { kind: 'refund'; key: string; row: Fields; amount: number }
}

/** A user's subscriptions in the Polar emulator in the order taken, each with its paid orders. */
export interface PolarResources {
  subscriptions: { subscription: Fields; orders: Fields[] }[]
}

/** `reorderWindowMs`: each event may be delivered as if up to this much later. */
interface StreamOptions {
  seed: number
  users: { id: string; provider: Provider; polar?: PolarResources }[]
  events: number
  duplicateRate: number
  reorderWindowMs: number
  polarInvoiceBaseUrl: string
}

export interface Delivery {
  event: StreamEvent
  duplicate: boolean
}

const RANKS: Record<string, number> = {
  incomplete: 1,
  trialing: 2,
  active: 3,
  past_due: 4,
  paused: 4,
  unpaid: 5,
  incomplete_expired: 6,
  canceled: 6,
}
const rankOf = (status: unknown) => (typeof status === 'string' ? (RANKS[status] ?? 0) : 0)

const plan = (key: 'pro' | 'starter') => {
  const { name, amount, stripe, polar } = catalogPlan(key)
  return { name, amount, stripePrice: stripe.priceId, polarProduct: polar.productId }
}
const PLANS = { pro: plan('pro'), starter: plan('starter') }
type PlanKey = keyof typeof PLANS
const otherPlan = (plan: PlanKey): PlanKey => (plan === 'pro' ? 'starter' : 'pro')

export const SUBSCRIPTION_COLUMNS = [
  'provider',
  'stripe_customer_id',
  'stripe_subscription_id',
  'polar_customer_id',
  'polar_subscription_id',
  'polar_product_id',
  'plan_name',
  'status',
  'billing_cycle',
  'current_period_start',
  'current_period_end',
  'cancel_at_period_end',
  'cancel_at',
  'canceled_at',
  'trial_start',
  'trial_end',
  'cancellation_reason',
  'cancellation_feedback',
  'cancellation_comment',
  'metadata',
  'last_event_at',
  'last_event_rank',
] as const
export const PAYMENT_COLUMNS = [
  'user_id',
  'provider',
  'provider_payment_id',
  'provider_charge_id',
  'amount',
  'currency',
  'status',
  'description',
  'invoice_url',
  'created_at',
] as const
export const TIME_COLUMNS = new Set([
  'current_period_start',
  'current_period_end',
  'cancel_at',
  'canceled_at',
  'trial_start',
  'trial_end',
  'last_event_at',
  'created_at',
])

const emptyRow = (): Fields => ({
  ...Object.fromEntries(SUBSCRIPTION_COLUMNS.map((column) => [column, null])),
  cancel_at_period_end: false,
  metadata: {},
  last_event_rank: 0,
})

/** apply_subscription_event, on one user's row; returns the new row or null when ignored. */
function applySubscription(row: Fields | null, event: StreamEvent): Fields | null {
  if (event.effect.kind !== 'subscription') return row
  const { fields, subKey } = event.effect
  const current = row ?? emptyRow()
  const rank = 'status' in fields ? rankOf(fields.status) : (current.last_event_rank as number)
  const oldSub = current[subKey]
  const newLifecycle =
    subKey in fields &&
    oldSub !== fields[subKey] &&
    ['canceled', 'incomplete_expired'].includes(current.status as string)
  const last = current.last_event_at as number | null
  if (
    last !== null &&
    (event.time < last ||
      (event.time === last && rank < (current.last_event_rank as number) && !newLifecycle))
  )
    return null
  if (
    subKey in fields &&
    oldSub != null &&
    oldSub !== fields[subKey] &&
    ['active', 'trialing', 'past_due'].includes(current.status as string) &&
    ['canceled', 'incomplete_expired', 'unpaid', 'incomplete'].includes(
      (fields.status as string | undefined) ?? 'canceled',
    )
  )
    return null
  const next = { ...current, ...fields }
  next.cancel_at_period_end = next.cancel_at_period_end ?? false
  next.metadata = next.metadata ?? {}
  next.last_event_at = event.time
  next.last_event_rank = rank
  return next
}

/** The rows the stream implies: subscription row per user index, payments by key. */
export function expectedState(events: StreamEvent[]) {
  const byUser = new Map<number, StreamEvent[]>()
  const payments = new Map<string, { row: Fields; createdAtChoices: Set<number> }>()
  for (const event of events) {
    if (event.effect.kind === 'subscription') {
      const list = byUser.get(event.user) ?? []
      list.push(event)
      byUser.set(event.user, list)
    } else if (event.effect.kind === 'payment') {
      const known = payments.get(event.effect.key)
      // A payment replaces a failure of the same invoice, never the other way round.
      if (!known || (known.row.status === 'failed' && event.effect.row.status !== 'failed'))
        payments.set(event.effect.key, {
          row: event.effect.row,
          createdAtChoices: new Set([event.effect.row.created_at as number]),
        })
    } else {
      const known = payments.get(event.effect.key)
      if (!known) {
        payments.set(event.effect.key, {
          row: { ...event.effect.row, amount: event.effect.amount },
          createdAtChoices: new Set([event.time]),
        })
      } else {
        // The refunded total is the largest refund; the row's time is that of whichever
        // refund event arrived first (the ledger keeps the first insert's created_at).
        known.row.amount = Math.min(known.row.amount as number, event.effect.amount)
        known.createdAtChoices.add(event.time)
      }
    }
  }
  const subscriptions = new Map<number, Fields>()
  for (const [user, list] of byUser) {
    const ordered = [...list].sort((a, b) => a.time - b.time || rankKey(a) - rankKey(b))
    let row: Fields | null = null
    for (const event of ordered) row = applySubscription(row, event) ?? row
    if (row) subscriptions.set(user, row)
  }
  return { subscriptions, payments }
}
const rankKey = (event: StreamEvent) =>
  event.effect.kind === 'subscription' && 'status' in event.effect.fields
    ? rankOf(event.effect.fields.status)
    : 0

/** What the actors of one stream share; `gapMs`: a new lifecycle starts after the last ended. */
interface Context {
  random: Random
  tag: string
  out: StreamEvent[]
  gapMs: number
  invoiceBaseUrl: string
}

const DAY = 86_400
const T0 = 1_780_000_000 // event time base (seconds), far from "now" on purpose

type SubscriptionOptions = Parameters<typeof subscriptionObject>[0]
type StripeSub = Required<Omit<SubscriptionOptions, 'userId' | 'price'>> & { plan: PlanKey }

const millis = (row: Fields) => {
  for (const column of TIME_COLUMNS)
    if (typeof row[column] === 'string') row[column] = Date.parse(row[column] as string)
  return row
}

class StripeUser {
  private sub: StripeSub | null = null
  private subCount = 0
  private invoiceCount = 0
  private eventCount = 0
  private pendingRecovery = false
  done = false
  t: number

  constructor(
    private readonly c: Context,
    private readonly index: number,
    private readonly userId: string,
  ) {
    this.t = T0 + c.random.int(0, DAY)
  }

  private push(type: string, time: number, object: unknown, effect: StreamEvent['effect']) {
    const id = `evt_${this.c.tag}u${this.index}e${++this.eventCount}`
    const body = JSON.stringify(stripeEvent(type, object, { id, created: time }))
    const user = this.index
    this.c.out.push({ provider: 'stripe', id, type, user, time: time * 1000, body, effect })
  }

  private emit(type: string, sub: StripeSub, time: number) {
    const plan = PLANS[sub.plan]
    const object = subscriptionObject({ ...sub, userId: this.userId, price: plan.stripePrice })
    const deleted = { deleted: type === 'customer.subscription.deleted' }
    const fields = subscriptionFields(StripeSubscriptionSchema.parse(object), plan.name, deleted)
    this.push(type, time, object, {
      kind: 'subscription',
      subKey: 'stripe_subscription_id',
      fields: millis(fields),
    })
  }

  private invoice(sub: StripeSub, time: number) {
    const id = `in_${this.c.tag}u${this.index}n${++this.invoiceCount}`
    const plan = PLANS[sub.plan]
    const invoice = {
      id,
      object: 'invoice',
      customer: sub.customer,
      amount_paid: plan.amount,
      currency: 'usd',
      status: 'paid',
      created: time,
      hosted_invoice_url: `https://invoice.example/${id}`,
      parent: {
        subscription_details: { subscription: sub.id, metadata: { user_id: this.userId } },
      },
      lines: { data: [{ pricing: { price_details: { price: plan.stripePrice } } }] },
    }
    const parsed = StripeInvoiceSchema.parse(invoice)
    const key = `stripe:${id}`
    // Some invoices fail first (a second earlier); Stripe's retry then pays the same invoice,
    // and the billing history must end with the payment whatever order they arrive in.
    if (this.c.random.chance(0.15)) {
      const failed = { ...invoice, status: 'open', amount_paid: 0, amount_due: plan.amount }
      const parsedFailed = StripeInvoiceSchema.parse(failed)
      const row = {
        ...invoicePayment(parsedFailed, this.userId, plan.name, null),
        amount: plan.amount,
        status: 'failed',
      }
      this.push('invoice.payment_failed', time - 1, failed, {
        kind: 'payment',
        key,
        row: millis(row),
      })
    }
    // Stripe sends invoice.paid and invoice.payment_succeeded for a charge it made (one row),
    // invoice.paid alone for an invoice paid out of band.
    const types = this.c.random.chance(0.1)
      ? ['invoice.paid']
      : ['invoice.payment_succeeded', ...(this.c.random.chance(0.5) ? ['invoice.paid'] : [])]
    const row = millis(invoicePayment(parsed, this.userId, plan.name, null))
    for (const type of types) this.push(type, time, invoice, { kind: 'payment', key, row })
  }

  /** A new subscription: created (incomplete) and updated (active) in the same second, paid. */
  private start() {
    const plan: PlanKey = this.c.random.chance(0.5) ? 'pro' : 'starter'
    const sub: StripeSub = {
      id: `sub_${this.c.tag}u${this.index}n${++this.subCount}`,
      customer: `cus_${this.c.tag}u${this.index}`,
      plan,
      status: 'incomplete',
      cancelAtPeriodEnd: false,
      canceledAt: null,
      feedback: null,
      periodStart: this.t,
      periodEnd: this.t + 30 * DAY,
    }
    this.sub = sub
    this.emit('customer.subscription.created', sub, this.t)
    sub.status = 'active'
    this.emit('customer.subscription.updated', sub, this.t)
    this.invoice(sub, this.t)
  }

  step() {
    if (this.done) return
    if (!this.sub) return this.start()
    this.t += this.c.random.int(60, 40_000)
    const sub = this.sub
    if (sub.status === 'canceled') {
      // A returning customer buys again (a new lifecycle), or leaves for good. The app sells
      // no second subscription while the row shows a live one, so the new one starts after
      // the old one's end arrived: later than the reordering can bring it.
      if (this.subCount < 3 && this.c.random.chance(0.6)) {
        this.t += Math.ceil(this.c.gapMs / 1000)
        return this.start()
      }
      this.done = true
      return
    }
    if (this.pendingRecovery) {
      this.pendingRecovery = false
      sub.status = 'active'
      this.emit('customer.subscription.updated', sub, this.t)
      this.invoice(sub, this.t)
      return
    }
    const roll = this.c.random.next()
    if (roll < 0.2) {
      sub.plan = otherPlan(sub.plan)
      this.emit('customer.subscription.updated', sub, this.t)
    } else if (roll < 0.35 && !sub.cancelAtPeriodEnd) {
      Object.assign(sub, {
        cancelAtPeriodEnd: true,
        canceledAt: this.t,
        feedback: this.c.random.pick(['too_expensive', 'unused', 'missing_features', null]),
      })
      this.emit('customer.subscription.updated', sub, this.t)
    } else if (roll < 0.5 && sub.cancelAtPeriodEnd) {
      Object.assign(sub, { cancelAtPeriodEnd: false, canceledAt: null, feedback: null })
      this.emit('customer.subscription.updated', sub, this.t)
    } else if (roll < 0.75) {
      // Renewal: new period and its invoice (in the same second).
      sub.periodStart = sub.periodEnd
      sub.periodEnd = sub.periodStart + 30 * DAY
      this.emit('customer.subscription.updated', sub, this.t)
      this.invoice(sub, this.t)
    } else if (roll < 0.85) {
      sub.status = 'past_due'
      this.emit('customer.subscription.updated', sub, this.t)
      this.pendingRecovery = true
    } else {
      // Canceled now; sometimes a last update in the same second (lower rank) first.
      if (this.c.random.chance(0.4)) this.emit('customer.subscription.updated', sub, this.t)
      Object.assign(sub, { status: 'canceled', canceledAt: this.t })
      this.emit('customer.subscription.deleted', sub, this.t)
    }
  }
}

class PolarUser {
  private subIndex = -1
  private orderIndex = 0
  private eventCount = 0
  private sub: Fields | null = null
  private paidOrders: { order: Fields; refunded: number }[] = []
  done = false
  t: number

  constructor(
    private readonly c: Context,
    private readonly index: number,
    private readonly userId: string,
    private readonly resources: PolarResources,
  ) {
    this.t = (T0 + c.random.int(0, DAY)) * 1000 + c.random.int(0, 999)
  }

  private push(type: string, data: Fields, effect: StreamEvent['effect']) {
    const id = `msg_${this.c.tag}u${this.index}e${++this.eventCount}`
    const timestamp = new Date(this.t).toISOString()
    const body = JSON.stringify(polarEvent(type, data, { timestamp }))
    this.c.out.push({ provider: 'polar', id, type, user: this.index, time: this.t, body, effect })
  }

  private emitSub(type: string) {
    const sub = structuredClone(this.sub as Fields)
    const fields = polarSubscriptionFields(type, PolarSubscriptionSchema.parse(sub))
    if (!fields) throw new Error(`unmapped ${type}`)
    this.push(type, sub, {
      kind: 'subscription',
      subKey: 'polar_subscription_id',
      fields: millis({ ...fields }),
    })
    this.t += this.c.random.int(1, 400) // the next event of a flow, some milliseconds later
  }

  private pay() {
    const order = this.resources.subscriptions[this.subIndex].orders[this.orderIndex++]
    if (!order) return
    const row = polarOrderPayment(PolarOrderSchema.parse(order), this.userId)
    // The app fills the invoice link in from the emulator.
    row.invoice_url = `${this.c.invoiceBaseUrl}/invoices/${String(order.id)}`
    this.push('order.paid', order, {
      kind: 'payment',
      key: `polar:${row.provider_payment_id}:succeeded`,
      row: millis({ ...row }),
    })
    this.paidOrders.push({ order, refunded: 0 })
    this.t += this.c.random.int(1, 400)
  }

  private refund() {
    const candidates = this.paidOrders.filter(
      (entry) => entry.refunded < (entry.order.net_amount as number),
    )
    if (candidates.length === 0) return false
    const entry = this.c.random.pick(candidates)
    const net = entry.order.net_amount as number
    const total = this.c.random.chance(0.5) ? net : Math.min(net, entry.refunded + 500)
    entry.refunded = total
    const order: Fields = {
      ...entry.order,
      status: total >= net ? 'refunded' : 'partially_refunded',
      refunded_amount: total,
    }
    const row = polarRefundPayment(PolarOrderSchema.parse(order), this.userId, '')
    this.push('order.refunded', order, {
      kind: 'refund',
      key: `polar:${row.provider_payment_id}:refunded`,
      amount: row.amount,
      row: { ...row, created_at: null },
    })
    return true
  }

  private start() {
    this.subIndex += 1
    this.orderIndex = 0
    const base = this.resources.subscriptions[this.subIndex]
    if (!base) {
      this.done = true
      return
    }
    this.sub = structuredClone(base.subscription)
    this.emitSub('subscription.created')
    this.emitSub('subscription.active')
    this.pay()
  }

  step() {
    if (this.done) return
    if (!this.sub) return this.start()
    this.t += this.c.random.int(60, 40_000) * 1000
    const sub = this.sub
    if (sub.status === 'canceled') {
      if (this.c.random.chance(0.6)) {
        this.t += this.c.gapMs
        return this.start()
      }
      this.done = true
      return
    }
    const roll = this.c.random.next()
    const iso = (ms: number) => new Date(ms).toISOString()
    if (roll < 0.15) {
      const plan = PLANS[sub.product_id === PLANS.pro.polarProduct ? 'starter' : 'pro']
      sub.product_id = plan.polarProduct
      sub.product = { ...(sub.product as Fields), id: plan.polarProduct, name: plan.name }
      this.emitSub('subscription.updated')
    } else if (roll < 0.3 && !sub.cancel_at_period_end) {
      Object.assign(sub, {
        cancel_at_period_end: true,
        canceled_at: iso(this.t),
        ends_at: sub.current_period_end,
      })
      this.emitSub('subscription.updated')
      this.emitSub('subscription.canceled')
    } else if (roll < 0.45 && sub.cancel_at_period_end) {
      Object.assign(sub, { cancel_at_period_end: false, canceled_at: null, ends_at: null })
      this.emitSub('subscription.updated')
      this.emitSub('subscription.uncanceled')
    } else if (roll < 0.7) {
      const start = Date.parse(String(sub.current_period_end))
      Object.assign(sub, {
        current_period_start: iso(start),
        current_period_end: iso(start + 30 * DAY * 1000),
      })
      this.emitSub('subscription.updated')
      this.pay()
    } else if (roll < 0.88) {
      if (!this.refund()) this.emitSub('subscription.updated')
    } else {
      Object.assign(sub, {
        status: 'canceled',
        cancel_at_period_end: false,
        canceled_at: iso(this.t),
        ends_at: iso(this.t),
        ended_at: iso(this.t),
      })
      this.emitSub('subscription.updated')
      this.emitSub('subscription.canceled')
      this.emitSub('subscription.revoked')
    }
  }
}

/** Generates the unique events (time-ordered per user), then the delivery order. */
export function generateStream(options: StreamOptions) {
  const random = createRandom(options.seed)
  const events: StreamEvent[] = []
  const context: Context = {
    random,
    tag: `s${options.seed}`,
    out: events,
    gapMs: options.reorderWindowMs + 60_000,
    invoiceBaseUrl: options.polarInvoiceBaseUrl,
  }
  const actors = options.users.map((user, index) =>
    user.provider === 'stripe'
      ? new StripeUser(context, index, user.id)
      : new PolarUser(context, index, user.id, user.polar!),
  )
  while (events.length < options.events && actors.some((actor) => !actor.done)) {
    for (const actor of actors) {
      actor.step()
      if (events.length >= options.events) break
    }
  }

  // Delivery order: by time, each event possibly delayed within the window (bounded
  // reordering); events of one second stay adjacent only by chance.
  const keyed = events.map((event) => ({
    event,
    key: event.time + random.next() * options.reorderWindowMs,
  }))
  keyed.sort((a, b) => a.key - b.key)
  const deliveries: Delivery[] = keyed.map(({ event }) => ({ event, duplicate: false }))
  // Duplicates: some right next to the first delivery (they race), some later.
  const duplicates = Math.round(events.length * options.duplicateRate)
  for (let n = 0; n < duplicates; n++) {
    const from = random.int(0, deliveries.length - 1)
    const at = random.chance(0.4)
      ? from + 1
      : Math.min(deliveries.length, from + random.int(1, 300))
    deliveries.splice(at, 0, { event: deliveries[from].event, duplicate: true })
  }

  // Reordered: deliveries that reach the app after a newer event of the same user.
  const newest = new Map<number, number>()
  let reordered = 0
  for (const { event, duplicate } of deliveries) {
    const seen = newest.get(event.user) ?? -Infinity
    if (!duplicate && event.time < seen) reordered += 1
    newest.set(event.user, Math.max(seen, event.time))
  }
  let sameSecond = 0
  const seconds = new Map<string, number>()
  for (const event of events) {
    const key = `${event.user}:${Math.floor(event.time / 1000)}`
    seconds.set(key, (seconds.get(key) ?? 0) + 1)
  }
  for (const count of seconds.values()) if (count > 1) sameSecond += count
  return { events, deliveries, reordered, sameSecond, duplicates }
}
