import { Form, Link, NavLink, useLocation } from '@remix-run/react'

import { CompactMenu } from './compact-menu'
import { ButtonLink } from './links'

const navClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium ${isActive ? 'text-brand-700' : 'text-slate-700 hover:text-slate-900'}`

export function SiteHeader({ user }: { user: { email: string } | null }) {
  const { pathname } = useLocation()
  return (
    <header className="border-b border-slate-200">
      <nav
        aria-label="Main"
        className="mx-auto flex max-w-6xl items-center justify-between gap-2 px-4 py-3"
      >
        <Link to="/" className="text-lg font-semibold tracking-tight text-slate-900">
          Subscribely
        </Link>
        <CompactMenu
          label="Menu"
          current={['Pricing', 'Contact', 'Dashboard'].find((page) =>
            pathname.startsWith(`/${page.toLowerCase()}`),
          )}
          barClass="items-center gap-1"
          items={
            <>
              <NavLink to="/pricing" className={navClass}>
                Pricing
              </NavLink>
              <NavLink to="/contact" className={navClass}>
                Contact
              </NavLink>
              {user ? (
                <>
                  <NavLink to="/dashboard" className={navClass}>
                    Dashboard
                  </NavLink>
                  <Form method="post" action="/sign-out">
                    <button type="submit" className={navClass({ isActive: false })}>
                      Sign out
                    </button>
                  </Form>
                </>
              ) : (
                <ButtonLink to="/sign-in" className="sm:ml-2">
                  Sign in
                </ButtonLink>
              )}
            </>
          }
        />
      </nav>
    </header>
  )
}
