import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { Outlet, useLoaderData } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { requireUserWith } from '~/auth/session.server'
import { DashboardNav } from '~/components/dashboard-nav'
import { profileView } from '~/profile/profile.server'

// Every page under /dashboard requires a signed-in user; pages with private data are never cached.
export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await requireUserWith(request, accountSummaryOf(request))
  const profile = profileView(user.id, summary.profile)
  // Only what the page shows: the session's id and recovery time stay on the server.
  return data({ user: { id: user.id, email: user.email }, profile }, { headers })
}

export default function DashboardLayout() {
  const { user, profile } = useLoaderData<typeof loader>()
  const name = profile.displayName ?? user.email
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-8 px-4 py-8 md:flex-row md:py-10">
      <DashboardNav name={name} email={user.email} avatarUrl={profile.avatarUrl} />
      <div className="min-w-0 flex-1">
        <Outlet />
      </div>
    </div>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
