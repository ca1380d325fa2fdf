import { checkDatabase } from '~/lib/database/database-availability.server'

/**
 * Readiness, 503 while the database cannot answer; `?live`: liveness with no I/O, for checks
 * that restart the process (a restart cures no database outage). See docs/operations.md.
 */
export const loader = async ({ request }: { request: Request }) => {
  if (new URL(request.url).searchParams.has('live')) return Response.json({ ok: true })
  const database = await checkDatabase()
  return Response.json(
    { ok: database === 'ok', database },
    { status: database === 'ok' ? 200 : 503 },
  )
}
