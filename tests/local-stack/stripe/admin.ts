import type { IncomingMessage, ServerResponse } from 'node:http'

import { z } from 'zod'

import { chargeOf, refundCharge } from './charges'
import type { EventBus } from './events'
import type { FaultInjector } from './faults'
import { decodeForm, readBody, redirect, sendHtml, sendJson, StripeApiError } from './http'
import { deliveriesPage, paymentsPage } from './pages'
import { advanceSubscription, type BillingContext } from './subscriptions'
import type { WebhookDispatcher } from './webhooks'

export interface AdminContext extends BillingContext {
  bus: EventBus
  dispatcher: WebhookDispatcher
  faults: FaultInjector
}

export async function handleAdmin(
  ctx: AdminContext,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<boolean> {
  const method = req.method ?? 'GET'
  const path = url.pathname
  if (!path.startsWith('/_emulator/')) return false
  const isForm = (req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')
  try {
    if (method === 'GET' && path === '/_emulator/deliveries') {
      sendHtml(res, 200, deliveriesPage(ctx))
    } else if (method === 'GET' && path === '/_emulator/payments') {
      sendHtml(res, 200, paymentsPage(ctx))
    } else if (method === 'POST' && /^\/_emulator\/charges\/[^/]+\/refund$/.test(path)) {
      const charge = chargeOf(ctx, { charge: decodeURIComponent(path.split('/')[3]) })
      const { amount } = z
        .object({
          amount: z.preprocess(
            (value) => (value === '' ? undefined : value),
            z.coerce.number().int().positive().optional(),
          ),
        })
        .parse(await readInput(req, isForm))
      refundCharge(ctx, charge, amount)
      if (isForm) redirect(res, '/_emulator/payments')
      else sendJson(res, 200, charge)
    } else if (method === 'POST' && /^\/_emulator\/events\/[^/]+\/resend$/.test(path)) {
      const eventId = decodeURIComponent(path.split('/')[3])
      ctx.bus.resend(eventId)
      if (isForm) redirect(res, '/_emulator/deliveries')
      else sendJson(res, 200, { resent: eventId })
    } else if (method === 'POST' && /^\/_emulator\/subscriptions\/[^/]+\/renew$/.test(path)) {
      const sub = ctx.store.subscription(decodeURIComponent(path.split('/')[3]))
      const { fail } = z
        .object({ fail: z.boolean().default(false) })
        .parse(await readInput(req, false))
      const events = advanceSubscription(ctx, sub, fail)
      sendJson(res, 200, {
        subscription: sub,
        events: events.map((event) => ({ id: event.id, type: event.type })),
      })
    } else if (method === 'POST' && path === '/_emulator/faults') {
      sendJson(res, 200, { fault: ctx.faults.add((await readInput(req, false)) as never) })
    } else if (method === 'DELETE' && path === '/_emulator/faults') {
      ctx.faults.clear()
      sendJson(res, 200, { faults: [] })
    } else {
      sendJson(res, 404, {
        error: {
          type: 'invalid_request_error',
          message: `Unknown emulator endpoint ${method} ${path}`,
        },
      })
    }
  } catch (error) {
    const status = error instanceof StripeApiError ? error.status : 400
    const message =
      error instanceof z.ZodError
        ? z.prettifyError(error)
        : error instanceof Error
          ? error.message
          : String(error)
    sendJson(res, status, { error: { type: 'invalid_request_error', message } })
  }
  return true
}

async function readInput(req: IncomingMessage, isForm: boolean): Promise<unknown> {
  const body = await readBody(req)
  if (isForm) return decodeForm(body)
  if (body.trim() === '') return {}
  return JSON.parse(body) as unknown
}
