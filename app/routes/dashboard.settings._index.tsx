import { redirect } from '@remix-run/node'
import { secureResource } from '~/lib/security-headers.server'

// /dashboard/settings has no page of its own: General is the first settings page.
export const loader = secureResource(() => {
  return redirect('/dashboard/settings/general')
})
