import { redirect, type ActionFunctionArgs } from '@remix-run/node'
import { signOut } from '~/auth/auth.server'
import { CROSS_SITE_API_MESSAGE, crossSiteRefusal } from '~/lib/cross-site.server'
import { jsonNoStore } from '~/lib/http.server'

// POST /sign-out: ends the session in this browser. GET does nothing (no state change on GET).
export const action = async ({ request }: ActionFunctionArgs) => {
  if (crossSiteRefusal(request)) {
    return jsonNoStore({ error: CROSS_SITE_API_MESSAGE }, { status: 403 })
  }
  const { headers } = await signOut(request, 'local')
  return redirect('/?notice=signed-out', { headers })
}

export const loader = async () => {
  return redirect('/')
}
