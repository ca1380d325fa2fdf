import { redirect } from '@remix-run/node'

// /dashboard/settings has no page of its own: General is the first settings page.
export const loader = () => redirect('/dashboard/settings/general')
