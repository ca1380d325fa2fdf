import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import * as z from 'zod/mini'

import { getEnv } from '~/env.server'
import { rpc } from '~/lib/database/rpc.server'

/** The process's series, in Prometheus text format at /metrics (docs/operations.md, "Alerts"). */
const registry = new Registry()
collectDefaultMetrics({ register: registry })
const registers = [registry]

const labelNames = ['route', 'method', 'status']
const requests = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Answers',
  labelNames,
  registers,
})
const counter = (name: string, help: string, labelNames: string[] = []) =>
  new Counter({ name, help, labelNames, registers })
export const webhookAnswers = counter('webhook_answers_total', 'By status', ['provider', 'answer'])
export const webhookOutcomes = counter('webhook_outcomes_total', 'Handled', ['provider', 'outcome'])
export const mailFailures = counter('mail_failures_total', 'Failed sends', ['final'])
export const rateLimitRefusals = counter('rate_limit_refusals_total', 'Refused', ['limit'])
export const sessionChecksUnavailable = counter('session_checks_unavailable_total', 'Failed', [
  'answer',
])
const gauge = (name: string, help: string, labelNames: string[] = []) =>
  new Gauge({ name, help, labelNames, registers })
const outboxDepth = gauge('notification_outbox_depth', 'Mails waiting to be sent')
const outboxAge = gauge('notification_outbox_oldest_age_seconds', 'Age of the oldest waiting mail')
const corrections = gauge('reconcile_corrections', 'Ledger rows of reconciliation', ['provider'])

const snapshot = z.object({
  outbox_depth: z.number(),
  outbox_oldest_age_seconds: z.number(),
  reconcile_corrections: z.record(z.string(), z.number()),
})

/**
 * Route patterns from the build, so that a label is a route (`/subscribe/:plan`), never a raw
 * path; unmatched paths are `other`. Matched per answer in memory: no I/O per request.
 */
export function requestMetrics(routes: Record<string, { path?: string; parentId?: string }>) {
  const full = (id: string | undefined): string =>
    id && routes[id] ? `${full(routes[id].parentId)}/${routes[id].path ?? ''}` : ''
  const patterns = Object.keys(routes)
    .map((id) => `/${full(id).split('/').filter(Boolean).join('/')}`)
    .filter((path) => !path.includes('*'))
    .map((path) => ({ path, regex: new RegExp(`^${path.replace(/:[^/]+/g, '[^/]+')}/?$`) }))
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const end = requests.startTimer({ method: req.method })
    res.once('finish', () => {
      const path = (req.url ?? '').split('?')[0]
      const route = patterns.find(({ regex }) => regex.test(path))?.path ?? 'other'
      end({ route, status: res.statusCode })
    })
    next()
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/** GET /metrics: 404 without METRICS_TOKEN set, 401 without it as a bearer token. */
export async function metricsResponse(request: Request) {
  const token = getEnv().METRICS_TOKEN
  if (!token) return Response.json({ success: false, message: 'Not found' }, { status: 404 })
  const given = request.headers.get('authorization')?.replace(/^Bearer /i, '') ?? ''
  if (!timingSafeEqual(digest(given), digest(token)))
    return Response.json({ success: false, message: 'Unauthorized' }, { status: 401 })
  // One database round trip per scrape (none per request), bounded like a scrape's timeout.
  const now = await rpc('operations_metrics', {}, { get: true, timeoutMs: 2_000, result: snapshot })
  outboxDepth.set(now.outbox_depth)
  outboxAge.set(now.outbox_oldest_age_seconds)
  for (const [provider, count] of Object.entries(now.reconcile_corrections))
    corrections.set({ provider }, count)
  return new Response(await registry.metrics(), {
    headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' },
  })
}
