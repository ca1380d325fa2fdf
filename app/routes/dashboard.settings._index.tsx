import { redirect } from '@remix-run/node'

// /dashboard/settings has no page of its own: General is the first settings page.
export function loader() {
  return redirect('/dashboard/settings/general')
}
