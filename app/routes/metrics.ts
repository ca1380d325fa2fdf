import { createHash, timingSafeEqual } from 'node:crypto'

import { getEnv } from '~/env.server'
import { rpc } from '~/lib/database/rpc.server'
import { gauges, registry } from '~/lib/server/metrics.server'

/** Prometheus metrics (docs/operations.md, "Alerts"): 404 without METRICS_TOKEN, 401 without it. */
export async function loader({ request }: { request: Request }) {
  const token = getEnv().METRICS_TOKEN
  if (!token) return Response.json({ success: false, message: 'Not found' }, { status: 404 })
  const [given, wanted] = [request.headers.get('Authorization') ?? '', `Bearer ${token}`].map(
    (value) => createHash('sha256').update(value).digest(),
  )
  if (!timingSafeEqual(given, wanted))
    return Response.json({ success: false, message: 'Unauthorized' }, { status: 401 })
  // One database round trip per scrape, none per request.
  for (const { name, provider, value } of await rpc('operations_metrics', {}, { get: true }))
    gauges.get(name)?.set(provider ? { provider } : {}, value)
  return new Response(await registry.metrics(), {
    headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' },
  })
}
