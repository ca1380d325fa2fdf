import type { MetaFunction } from '@remix-run/node'

import { ButtonLink } from '~/components/links'

// Where account deletion lands: the session is gone, so this page needs no user.
export default function AccountDeleted() {
  return (
    <div className="mx-auto max-w-xl px-4 py-24 text-center">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">
        Your account has been deleted
      </h1>
      <p className="mt-4 text-slate-700">
        Your profile, avatar and billing records are gone, and any subscription was canceled. We are
        sorry to see you go.
      </p>
      <ButtonLink to="/" className="mt-8">
        Go to the home page
      </ButtonLink>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Account deleted | Subscribely' }]
