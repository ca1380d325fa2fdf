import { checkDatabase } from '~/lib/database/database-availability.server'

/**
 * Readiness (503 while the database cannot answer) and its migrations against the code's;
 * `?live`: liveness with no I/O, for checks that restart the process. See docs/operations.md.
 */
export const loader = async ({ request }: { request: Request }) => {
  if (new URL(request.url).searchParams.has('live')) return Response.json({ ok: true })
  const state = await checkDatabase()
  const ok = state.database === 'ok'
  return Response.json({ ok, ...state }, { status: ok ? 200 : 503 })
}
