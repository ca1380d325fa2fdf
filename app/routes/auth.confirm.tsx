import {
  data,
  redirect,
  type ActionFunctionArgs,
  type LoaderFunctionArgs,
  type MetaFunction,
} from '@remix-run/node'
import { Form, useLoaderData } from '@remix-run/react'
import type { EmailOtpType } from '@supabase/supabase-js'
import { isEmailLinkType, verifyEmailLink, type EmailLink } from '~/auth/auth.server'
import { nextFromLink } from '~/auth/safe-next-path'
import { AuthCard } from '~/components/auth-card'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { SubmitButton } from '~/components/forms'
import { getEnv } from '~/env.server'
import { refuseCrossSite } from '~/lib/cross-site.server'
import { readFormData } from '~/lib/http.server'

// GET /auth/confirm: an emailed link opened in a browser that did not ask for it (another
// device, a forwarded mail, a link someone sent) is only followed once the person says so
// here. This stops a stranger's link from silently signing this browser into their account
// (login CSRF), and mail scanners that open links from using them up.

const WHAT: Record<EmailOtpType, { title: string; action: string }> = {
  signup: { title: 'Confirm your email', action: 'Confirm my email' },
  email: { title: 'Confirm your email', action: 'Confirm my email' },
  invite: { title: 'Accept the invitation', action: 'Accept and sign in' },
  magiclink: { title: 'Sign in', action: 'Sign in' },
  recovery: { title: 'Reset your password', action: 'Continue to choose a password' },
  email_change: { title: 'Confirm your new email', action: 'Confirm the change' },
}

const TOKEN_HASH = /^[A-Za-z0-9_-]{1,200}$/

/** The link's parameters, or null when they cannot be a link we sent. */
function readLink(params: { get(name: string): unknown }): EmailLink | null {
  const tokenHash = params.get('token_hash')
  const type = params.get('type')
  const next = params.get('next')
  if (typeof tokenHash !== 'string' || !TOKEN_HASH.test(tokenHash)) return null
  if (typeof type !== 'string' || !isEmailLinkType(type)) return null
  return { tokenHash, type, next: nextFromLink(next, getEnv().SITE_URL) }
}

export async function loader({ request }: LoaderFunctionArgs) {
  const link = readLink(new URL(request.url).searchParams)
  if (!link) throw redirect('/sign-in?error=auth_failed')
  return data(link, { headers: { 'Cache-Control': 'no-store' } })
}

export async function action({ request }: ActionFunctionArgs) {
  refuseCrossSite(request)
  const link = readLink(await readFormData(request))
  if (!link) throw redirect('/sign-in?error=auth_failed', { status: 303 })
  const { location, headers } = await verifyEmailLink(request, link, { confirmed: true })
  throw redirect(location, { status: 303, headers })
}

export function headers() {
  return { 'Cache-Control': 'no-store' }
}

export default function ConfirmLink() {
  const link = useLoaderData<typeof loader>()
  const what = WHAT[link.type]
  return (
    <AuthCard title={what.title}>
      <p className="text-slate-700">
        You opened a link from an email we sent. Continue only if you asked for it just now, on this
        or another device.
      </p>
      <p className="text-sm text-slate-600">
        Did not ask for it? Close this page: a link someone else asked for would sign this browser
        in to their account.
      </p>
      <Form method="post" className="space-y-4">
        <input type="hidden" name="token_hash" value={link.tokenHash} />
        <input type="hidden" name="type" value={link.type} />
        <input type="hidden" name="next" value={link.next} />
        <SubmitButton pendingText="Confirming…">{what.action}</SubmitButton>
      </Form>
    </AuthCard>
  )
}

export const meta: MetaFunction = () => [
  { title: 'Confirm | Subscribely' },
  { name: 'robots', content: 'noindex' },
]

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
