import { createHash, timingSafeEqual } from 'node:crypto'

import { getEnv } from '~/env.server'
import { database } from '~/lib/database/database.server'
import { databaseError } from '~/lib/database/database-availability.server'
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
  // One database round trip per scrape (none per request), bounded like a scrape's timeout.
  const read = database({ timeoutMs: 2_000 }).rpc('operations_metrics', {}, { get: true })
  const { data, error } = await read
  if (error) throw databaseError('operations_metrics', error)
  for (const { name, provider, value } of data)
    gauges.get(name)?.set(provider ? { provider } : {}, value)
  return new Response(await registry.metrics(), {
    headers: { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' },
  })
}
