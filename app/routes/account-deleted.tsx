import type { MetaFunction } from '@remix-run/node'

import { MessagePage } from '~/components/error-boundary'

// Where account deletion lands: the session is gone, so this page needs no user.
export default function AccountDeleted() {
  return (
    <MessagePage title="Your account has been deleted">
      <p className="mt-4 text-slate-700">
        Your profile, avatar and billing records are gone, and any subscription was canceled. We are
        sorry to see you go.
      </p>
    </MessagePage>
  )
}

export const meta: MetaFunction = () => [{ title: 'Account deleted | Subscribely' }]
