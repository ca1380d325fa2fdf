import type { LoaderFunctionArgs } from '@remix-run/node'
import { completeAuthCallback } from '~/auth/auth.server'

// GET /auth/callback: finish an OAuth, magic-link, sign-up or recovery flow; always a 302.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { location, headers } = await completeAuthCallback(request)
  headers.set('Location', location)
  return new Response(null, { status: 302, headers })
}
