import type { IncomingMessage, ServerResponse } from 'node:http'

import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

/** The process's series, in Prometheus text format at /metrics (docs/operations.md, "Alerts"). */
export const registry = new Registry()
collectDefaultMetrics({ register: registry })
const registers = [registry]
const counter = (name: string, help: string, ...labelNames: string[]) =>
  new Counter({ name, help, labelNames, registers })
const labelNames = ['route', 'method', 'status']
const requests = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Answers',
  labelNames,
  registers,
})
export const webhookOutcomes = counter('webhook_outcomes_total', 'Handled', 'provider', 'outcome')
export const mailFailures = counter('mail_failures_total', 'Failed sends', 'final')
export const rateLimitRefusals = counter('rate_limit_refusals_total', 'Refused', 'limit')
export const sessionChecks = counter('session_checks_unavailable_total', 'Failed', 'answer')
export const legacyTokens = counter('session_tokens_legacy_signed_total', 'HS256 or no kid')
/** The database's figures, named as `operations_metrics()` names them. */
export const gauges = new Map(
  [
    ['notification_outbox_depth', 'Mails waiting to be sent'],
    ['notification_outbox_oldest_age_seconds', 'Age of the oldest waiting mail'],
    ['reconcile_corrections', 'Ledger rows of reconciliation'],
  ].map(([name, help]) => [name, new Gauge({ name, help, labelNames: ['provider'], registers })]),
)

/** Labels by the build's route patterns (`/subscribe/:plan`, else `other`), never a raw path. */
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
