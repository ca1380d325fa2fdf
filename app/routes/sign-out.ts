import { type ActionFunctionArgs, redirect } from '@remix-run/node'

import { signOut } from '~/auth/auth.server'

// POST /sign-out: ends the session in this browser. GET does nothing (no state change on GET).
export const action = async ({ request }: ActionFunctionArgs) => {
  const { headers } = await signOut(request)
  return redirect('/?notice=signed-out', { status: 303, headers })
}

export const loader = () => redirect('/')
