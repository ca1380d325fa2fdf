import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Outlet } from '@remix-run/react'
import { requireUser } from '~/auth/session.server'
import { GeneralErrorBoundary } from '~/components/error-boundary'

// Every page under /dashboard requires a signed-in user; pages with private data are never cached.
export async function loader({ request }: LoaderFunctionArgs) {
  const { user, headers } = await requireUser(request)
  headers.set('Cache-Control', 'private, no-store')
  return data({ user }, { headers })
}

export function headers() {
  return { 'Cache-Control': 'private, no-store' }
}

export default function DashboardLayout() {
  return (
    <div className="mx-auto max-w-6xl px-4 py-10">
      <Outlet />
    </div>
  )
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
