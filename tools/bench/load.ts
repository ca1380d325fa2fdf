// One autocannon run over loopback, bounded in time and count, reduced to the bench's figures.
import autocannon from 'autocannon'

export interface Scenario {
  name: string
  method?: 'GET' | 'POST'
  path: string
  connections: number
  headers?: Record<string, string>
  /** A fresh body and headers for every request (unique events, distinct clients). */
  next?: () => { body?: string; headers?: Record<string, string> }
  body?: string
  /** The answer the path gives when it works, if not a 2xx (a refused sign-in: 400). */
  expectedStatus?: number
}

export interface RunFigures {
  name: string
  path: string
  connections: number
  seconds: number
  requests: number
  rps: number
  p50: number
  p99: number
  /** Responses other than 2xx (or the expected status), plus socket errors and timeouts. */
  errors: number
  statuses: Record<string, number>
}

export async function runScenario(
  origin: string,
  scenario: Scenario,
  limits: { durationSeconds: number; maxRequests: number },
): Promise<RunFigures> {
  const request: autocannon.Request = {
    method: scenario.method ?? 'GET',
    path: scenario.path,
    headers: scenario.headers,
    body: scenario.body,
  }
  if (scenario.next) {
    const next = scenario.next
    request.setupRequest = (req) => {
      const fresh = next()
      return {
        ...req,
        body: fresh.body ?? req.body,
        headers: { ...scenario.headers, ...fresh.headers },
      }
    }
  }
  const statuses: Record<string, number> = {}
  const result = await autocannon({
    url: origin,
    connections: scenario.connections,
    duration: limits.durationSeconds,
    maxOverallRequests: Math.max(limits.maxRequests, scenario.connections),
    timeout: 10,
    requests: [request],
    setupClient: (client) => {
      client.on('response', (statusCode: number) => {
        statuses[statusCode] = (statuses[statusCode] ?? 0) + 1
      })
    },
  })
  const ok =
    result['2xx'] + (scenario.expectedStatus ? (statuses[scenario.expectedStatus] ?? 0) : 0)
  const answered = Object.values(statuses).reduce((sum, n) => sum + n, 0)
  const seconds = result.duration
  return {
    name: scenario.name,
    path: scenario.path,
    connections: scenario.connections,
    seconds,
    requests: answered,
    rps: Math.round(ok / seconds),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: answered - ok + result.errors + result.timeouts,
    statuses,
  }
}
