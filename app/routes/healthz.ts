import { secureResource } from '~/lib/security-headers.server'

// Liveness probe for load balancers, and the baseline of the benchmark: no I/O at all.
export const loader = secureResource(() => {
  return Response.json({ ok: true }, { headers: { 'Cache-Control': 'no-store' } })
})
