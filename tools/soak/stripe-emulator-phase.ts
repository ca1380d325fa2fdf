// The soak's second phase: subscriptions through the Stripe emulator itself (a renewal
// declined, then recovered by the portal, the hosted invoice page, out of band, or not; a
// payment refunded or disputed), its events delivered shuffled and partly duplicated; each
// user's row and payments then compared with the emulator's objects.
import Stripe from 'stripe'

import { catalogPlan } from '../../app/billing/plans.test-support'
import { LOCAL_STACK_KEYS } from '../../tests/local-stack/defaults'
import type { LocalStack } from '../../tests/local-stack/stack'

/** Runs the flows for `userIds` (fresh users with no subscription) and checks the rows. */
export async function runStripeEmulatorPhase(stack: LocalStack, userIds: string[]) {
  const emulator = stack.stripe
  const stripe = new Stripe(LOCAL_STACK_KEYS.stripeSecretKey, {
    host: '127.0.0.1',
    port: emulator.port,
    protocol: 'http',
    maxNetworkRetries: 0,
  })
  const eventsBefore = emulator.events().length
  const deliveriesBefore = emulator.deliveries().length
  const subscriptions: string[] = []
  for (const [index, userId] of userIds.entries()) {
    const plan = index % 2 === 0 ? 'pro' : 'starter'
    const customer = await stripe.customers.create({ email: `soak-emulator-${index}@example.com` })
    const created = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: catalogPlan(plan).stripe.priceId }],
      metadata: { user_id: userId },
    })
    subscriptions.push(created.id)
    await emulator.advanceSubscription(created.id)
    await emulator.advanceSubscription(created.id, { fail: true })
    const declined = await stripe.subscriptions.retrieve(created.id)
    const invoice = await stripe.invoices.retrieve(declined.latest_invoice as string)
    // The subscriber comes back an hour later (a recovery in the failure's own second
    // cannot be told apart from it: event times are whole seconds).
    emulator.advanceClock(3600)
    if (index % 3 === 1) {
      const portal = await stripe.billingPortal.sessions.create({
        customer: customer.id,
        flow_data: { type: 'payment_method_update' },
      })
      await postForm(portal.url, {
        intent: 'update_payment_method',
        cardNumber: '4242424242424242',
      })
      await stripe.invoices.pay(invoice.id)
    } else if (index % 3 === 2) {
      await postForm(invoice.hosted_invoice_url as string, { cardNumber: '4242424242424242' })
      // Cancels a minute after paying: two updates of the same status in one second are
      // applied in arrival order (docs/webhooks.md, "Ordering"), and a person cannot pay on
      // Stripe's page and cancel in the app within one second.
      emulator.advanceClock(60)
      await stripe.subscriptions.update(created.id, { cancel_at_period_end: true })
    } else if (index % 2 === 0) {
      await stripe.invoices.pay(invoice.id, { paid_out_of_band: true })
    }
  }
  await emulator.idle()

  // Refunds and disputes of the first payment, once it is recorded (with its PaymentIntent).
  const disputes = new Map<string, string>()
  for (const [index, subscriptionId] of subscriptions.entries()) {
    const charge = await firstCharge(stripe, subscriptionId)
    if (index % 3 === 0) {
      await stripe.refunds.create({ charge: charge.id, amount: 300 })
      await stripe.refunds.create({ charge: charge.id, amount: 200 })
    } else if (index % 3 === 1) {
      await postForm(`${emulator.url}/_emulator/charges/${charge.id}/refund`, { amount: '' })
    } else {
      const opened = await emulator.trigger('charge.dispute.created', { charge: charge.id })
      const dispute = String(opened.data.object.id)
      await emulator.trigger('charge.dispute.closed', { dispute, disputeStatus: 'won' })
      disputes.set(charge.id, 'won')
    }
  }
  await emulator.idle()

  const mismatches: string[] = []
  let rowsChecked = 0
  for (const [index, userId] of userIds.entries()) {
    const sub = await stripe.subscriptions.retrieve(subscriptions[index])
    const {
      rows: [row],
    } = await stack.database.query<Record<string, unknown>>(
      'select * from public.user_subscriptions where user_id = $1',
      [userId],
    )
    rowsChecked += 1
    const want: Record<string, unknown> = {
      stripe_subscription_id: sub.id,
      status: sub.status,
      cancel_at_period_end: sub.cancel_at_period_end,
      current_period_end: sub.items.data[0].current_period_end * 1000,
    }
    for (const [column, value] of Object.entries(want)) {
      const got =
        column === 'current_period_end' && row?.[column]
          ? new Date(row[column] as string).getTime()
          : row?.[column]
      if (got !== value)
        mismatches.push(
          `emulator user ${index} ${column}: database ${JSON.stringify(got)}, Stripe ${JSON.stringify(value)}`,
        )
    }
    const invoices = await stripe.invoices.list({ subscription: sub.id, limit: 100 })
    const { rows: payments } = await stack.database.query<Record<string, unknown>>(
      "select * from public.payment_history where user_id = $1 and provider = 'stripe'",
      [userId],
    )
    for (const invoice of invoices.data.filter((candidate) => candidate.amount_due > 0)) {
      rowsChecked += 1
      const payment = payments.find((candidate) => candidate.provider_payment_id === invoice.id)
      const charge = invoice.status === 'paid' ? await chargeOf(stripe, invoice.id) : null
      const refunded = charge?.amount_refunded ?? 0
      const want = [
        invoice.status !== 'paid'
          ? 'failed'
          : refunded === 0
            ? 'paid'
            : refunded >= invoice.amount_paid
              ? 'refunded'
              : 'partially_refunded',
        invoice.status === 'paid' ? invoice.amount_paid : invoice.amount_due,
        refunded,
        (charge && disputes.get(charge.id)) ?? null,
      ].join(' ')
      const got = payment ? PAYMENT.map((column) => payment[column]).join(' ') : 'no payment row'
      if (got !== want)
        mismatches.push(
          `emulator user ${index} invoice ${invoice.id}: database ${got}, Stripe ${want}`,
        )
    }
  }
  const deliveries = emulator.deliveries().slice(deliveriesBefore)
  return {
    users: userIds.length,
    events: emulator.events().length - eventsBefore,
    deliveries: deliveries.length,
    duplicates: deliveries.filter((delivery) => delivery.duplicate).length,
    failedDeliveries: deliveries.filter((delivery) => !delivery.ok).length,
    rowsChecked,
    mismatches,
  }
}

const PAYMENT = ['status', 'amount', 'amount_refunded', 'dispute_status']

/** The charge that paid an invoice (none: paid out of band). */
async function chargeOf(stripe: Stripe, invoiceId: string) {
  const payments = await stripe.invoicePayments.list({ invoice: invoiceId, status: 'paid' })
  const intent = payments.data[0]?.payment.payment_intent
  if (!intent) return null
  const { latest_charge: charge } = await stripe.paymentIntents.retrieve(String(intent))
  return charge ? stripe.charges.retrieve(String(charge)) : null
}

async function firstCharge(stripe: Stripe, subscriptionId: string) {
  const invoices = await stripe.invoices.list({ subscription: subscriptionId, limit: 100 })
  const charge = await chargeOf(stripe, invoices.data[invoices.data.length - 1].id)
  if (!charge) throw new Error(`subscription ${subscriptionId}: its first invoice has no charge`)
  return charge
}

async function postForm(url: string, fields: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  })
  if (response.status !== 303) throw new Error(`${url}: ${response.status}`)
}
