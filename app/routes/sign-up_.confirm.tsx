import type { MetaFunction } from '@remix-run/node'
import { Link, useSearchParams } from '@remix-run/react'
import { AuthCard } from '~/components/auth-card'

export default function SignUpConfirm() {
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
        We sent a confirmation link to {email ? <strong>{email}</strong> : 'your email address'}.
        Open it to activate your account; the link works once and expires after an hour.
      </p>
      <p className="text-sm text-slate-600">
        No email? Check your spam folder, or sign up again to get a new link.
      </p>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [{ title: 'Confirm your email | Subscribely' }]
