import { type LoaderFunctionArgs, redirect } from '@remix-run/node'

import { completeAuthCallback } from '~/auth/callback.server'

// GET /auth/callback: finish an OAuth, magic-link, sign-up or recovery flow; always a 302.
export const loader = async ({ request }: LoaderFunctionArgs) => {
  const { location, headers } = await completeAuthCallback(request)
  // Over the session's own cache header (@supabase/ssr sets one with its cookies).
  headers.set('Cache-Control', 'no-store')
  return redirect(location, { headers })
}
