// Liveness probe for load balancers, and the baseline of the benchmark: no I/O at all.
export function loader() {
  return Response.json({ ok: true }, { headers: { 'Cache-Control': 'no-store' } })
}
