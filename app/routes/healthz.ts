import { checkDatabase } from '~/lib/database/database-availability.server'

/**
 * Health check for load balancers and platforms.
 *
 * - `GET /healthz`: readiness. 200 `{"ok": true, "database": "ok"}` when this process serves
 *   requests and the database answers; 503 `{"ok": false, "database": "unavailable"}` while
 *   it cannot be reached (the instance recovers by itself when it is back: no restart). The
 *   database is asked at most once a second per process (see `checkDatabase`).
 * - `GET /healthz?live`: liveness, no I/O at all: 200 `{"ok": true}` while the process
 *   serves requests. Use this one for checks that restart the process (a database outage
 *   is not cured by restarting the app), and as the benchmark's baseline.
 */
export const loader = async ({ request }: { request: Request }) => {
  if (new URL(request.url).searchParams.has('live')) return Response.json({ ok: true })
  const database = await checkDatabase()
  return Response.json(
    { ok: database === 'ok', database },
    { status: database === 'ok' ? 200 : 503 },
  )
}
