import { data, type LoaderFunctionArgs } from '@remix-run/node'
import { NavLink, Outlet, useLoaderData, useLocation } from '@remix-run/react'

import { accountSummaryOf } from '~/account/summary.server'
import { requireUserWith } from '~/auth/session.server'
import { Avatar } from '~/components/avatar'
import { CompactMenu } from '~/components/compact-menu'
import { profileView } from '~/profile/profile.server'

// Every page under /dashboard requires a signed-in user; pages with private data are never cached.
export async function loader({ request }: LoaderFunctionArgs) {
  const [{ user, headers }, summary] = await requireUserWith(request, accountSummaryOf(request))
  const profile = profileView(user.id, summary.profile)
  // Only what the page shows: the session's id and recovery time stay on the server.
  return data({ user: { id: user.id, email: user.email }, profile }, { headers })
}

const LINKS = [
  { to: '/dashboard', children: 'Overview', end: true },
  { to: '/dashboard/settings/general', children: 'General' },
  { to: '/dashboard/settings/account', children: 'Account' },
  { to: '/dashboard/settings/billing', children: 'Billing' },
  { to: '/dashboard/settings/notifications', children: 'Notifications' },
]

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `block whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium ${
    isActive
      ? 'bg-brand-50 text-brand-800'
      : 'text-slate-700 hover:bg-slate-50 hover:text-slate-900'
  }`

/** The side navigation: a menu on phones, a row from `sm`, a column from `md`. */
export default function DashboardLayout() {
  const { user, profile } = useLoaderData<typeof loader>()
  const name = profile.displayName ?? user.email
  const { pathname } = useLocation()
  return (
    <div className="mx-auto flex max-w-6xl flex-col gap-8 px-4 py-8 md:flex-row md:py-10">
      <aside className="md:w-56 md:shrink-0">
        <div className="flex items-center gap-3 border-b border-slate-200 pb-4">
          <Avatar url={profile.avatarUrl} name={name} />
          <div className="min-w-0">
            <p
              className="truncate text-sm font-semibold text-slate-900"
              data-testid="dashboard-user-name"
            >
              {name}
            </p>
            {name === user.email ? null : (
              <p className="truncate text-xs text-slate-600">{user.email}</p>
            )}
          </div>
        </div>
        <nav aria-label="Dashboard" className="mt-4">
          <CompactMenu
            label="Dashboard menu"
            current={
              LINKS.find(({ to, end }) => (end ? pathname === to : pathname.startsWith(to)))
                ?.children
            }
            barClass="-mx-1 flex-wrap gap-1 px-1 pb-2 md:flex-col"
            items={LINKS.map((link) => (
              <NavLink key={link.to} {...link} prefetch="intent" className={linkClass} />
            ))}
          />
        </nav>
      </aside>
      <div className="min-w-0 flex-1">
        <Outlet />
      </div>
    </div>
  )
}

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
