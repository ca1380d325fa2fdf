import { Link } from '@remix-run/react'

/** Site-wide footer; a signed-in user is not offered a new account. */
export function SiteFooter({ signedIn }: { signedIn: boolean }) {
  return (
    <footer className="border-t border-slate-200 bg-slate-50">
      <div className="mx-auto flex max-w-6xl flex-col gap-2 px-4 py-6 text-sm text-slate-600 sm:flex-row sm:items-center sm:justify-between">
        <p>© {new Date().getFullYear()} Subscribely.</p>
        <nav aria-label="Footer" className="flex gap-4">
          <Link to="/pricing" className="hover:text-slate-900">
            Pricing
          </Link>
          <Link to="/contact" className="hover:text-slate-900">
            Contact
          </Link>
          {signedIn ? null : (
            <Link to="/sign-up" className="hover:text-slate-900">
              Create an account
            </Link>
          )}
        </nav>
      </div>
    </footer>
  )
}
