import { NavLink } from '@remix-run/react'

import { Avatar } from './avatar'

const LINKS = [
  { to: '/dashboard', label: 'Overview', end: true },
  { to: '/dashboard/settings/general', label: 'General', end: false },
  { to: '/dashboard/settings/account', label: 'Account', end: false },
  { to: '/dashboard/settings/billing', label: 'Billing', end: false },
  { to: '/dashboard/settings/notifications', label: 'Notifications', end: false },
] as const

const linkClass = ({ isActive }: { isActive: boolean }) =>
  `block whitespace-nowrap rounded-md px-3 py-2 text-sm font-medium ${
    isActive
      ? 'bg-brand-50 text-brand-800'
      : 'text-slate-700 hover:bg-slate-50 hover:text-slate-900'
  }`

/**
 * The dashboard's side navigation: who is signed in and the pages (sign-out is in the site
 * header). Rows that wrap on phones (every tab in view, none cut at the edge), a column
 * from the `md` breakpoint up.
 */
export function DashboardNav({
  name,
  email,
  avatarUrl,
}: {
  name: string
  email: string
  avatarUrl: string | null
}) {
  return (
    <aside className="md:w-56 md:shrink-0">
      <div className="flex items-center gap-3 border-b border-slate-200 pb-4">
        <Avatar url={avatarUrl} name={name} />
        <div className="min-w-0">
          <p
            className="truncate text-sm font-semibold text-slate-900"
            data-testid="dashboard-user-name"
          >
            {name}
          </p>
          {name === email ? null : <p className="truncate text-xs text-slate-600">{email}</p>}
        </div>
      </div>
      <nav aria-label="Dashboard" className="mt-4">
        <ul className="-mx-1 flex flex-wrap gap-1 px-1 pb-2 md:flex-col">
          {LINKS.map((link) => (
            <li key={link.to}>
              <NavLink to={link.to} end={link.end} prefetch="intent" className={linkClass}>
                {link.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
    </aside>
  )
}
