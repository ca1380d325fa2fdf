import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/node'
import { Link, useSearchParams } from '@remix-run/react'
import { requireAnonymous } from '~/auth/session.server'
import { AuthCard } from '~/components/auth-card'

// A signed-in visitor is sent to the dashboard, as on the other auth pages.
export async function loader({ request }: LoaderFunctionArgs) {
  const { headers } = await requireAnonymous(request)
  return data(null, { headers })
}

export default function SignInConfirm() {
  const [params] = useSearchParams()
  const email = params.get('email')
  return (
    <AuthCard
      title="Check your email"
      footer={
        <Link to="/sign-in" className="font-semibold text-brand-700 hover:underline">
          Back to sign in
        </Link>
      }
    >
      <p className="text-slate-700">
        If an account exists for {email ? <strong>{email}</strong> : 'that address'}, we sent it a
        sign-in link. Open it in this browser to sign in; it works once and expires after an hour.
      </p>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Sign-in link sent | Subscribely' }]
