import {
  type ActionFunctionArgs,
  data,
  type LoaderFunctionArgs,
  type MetaFunction,
  redirect,
} from '@remix-run/node'
import { Form, Link, useLoaderData } from '@remix-run/react'
import type { EmailOtpType } from '@supabase/supabase-js'
import type { ReactNode } from 'react'

import { LINK_NOT_VALID } from '~/auth/auth-errors'
import { type EmailLink, verifyEmailLink } from '~/auth/callback.server'
import { emailLinkState, isEmailLinkType, type LinkPurpose } from '~/auth/email-link-state.server'
import { nextFromLink } from '~/auth/safe-next-path'
import { AuthCard } from '~/components/auth-card'
import { SubmitButton } from '~/components/forms'
import { BLOCK_BUTTON, TextLink } from '~/components/links'
import { getEnv } from '~/env.server'
import { readFormData } from '~/lib/server/http.server'

// GET /auth/confirm: an emailed link opened in a browser that did not ask for it is followed
// only once the person says so here, so a stranger's link cannot sign this browser into
// their account (login CSRF) and mail scanners cannot use links up (docs/security.md).

/** Per purpose: the page, the sentence that says what the link does for whom, and its button. */
const PURPOSES: Record<
  LinkPurpose,
  {
    title: string
    does: (who: ReactNode, newEmail: string | null) => ReactNode
    action: string
    again: { to: string; label: string }
  }
> = {
  confirm: {
    title: 'Confirm your email',
    does: (who) => (
      <>
        This link confirms the address {who} and signs this browser in to its Subscribely account.
      </>
    ),
    action: 'Confirm my email',
    again: { to: '/sign-up', label: 'Send a new link' },
  },
  'sign-in': {
    title: 'Sign in',
    does: (who) => <>This link signs this browser in to the Subscribely account {who}.</>,
    action: 'Sign in',
    again: { to: '/sign-in', label: 'Send a new link' },
  },
  reset: {
    title: 'Reset your password',
    does: (who) => (
      <>
        This link signs this browser in to the Subscribely account {who}, to choose a new password.
      </>
    ),
    action: 'Continue to choose a password',
    again: { to: '/forgot-password', label: 'Send a new link' },
  },
  invite: {
    title: 'Accept the invitation',
    does: (who) => (
      <>
        This link accepts the invitation for {who} and signs this browser in to its new Subscribely
        account.
      </>
    ),
    action: 'Accept and sign in',
    again: { to: '/sign-up', label: 'Send a new link' },
  },
  'email-change': {
    title: 'Confirm your new email',
    does: (who, newEmail) => (
      <>
        This link confirms that the Subscribely account {who} changes its email address
        {newEmail ? (
          <>
            {' '}
            to <strong>{newEmail}</strong>
          </>
        ) : null}
        .
      </>
    ),
    action: 'Confirm the change',
    again: { to: '/dashboard/settings/account', label: 'Ask for a new link' },
  },
}

/** What a link of this type does when the database cannot say more. */
const PURPOSE_OF_TYPE: Record<EmailOtpType, LinkPurpose> = {
  signup: 'confirm',
  email: 'confirm',
  invite: 'invite',
  magiclink: 'sign-in',
  recovery: 'reset',
  email_change: 'email-change',
}

const TOKEN_HASH = /^[A-Za-z0-9_-]{1,200}$/

/** The link's parameters, or null when they cannot be a link we sent. */
function readLink(params: { get(name: string): unknown }): EmailLink | null {
  const tokenHash = params.get('token_hash')
  const type = params.get('type')
  if (typeof tokenHash !== 'string' || !TOKEN_HASH.test(tokenHash)) return null
  if (typeof type !== 'string' || !isEmailLinkType(type)) return null
  return { tokenHash, type, next: nextFromLink(params.get('next'), getEnv().SITE_URL) }
}

export async function loader({ request }: LoaderFunctionArgs) {
  const link = readLink(new URL(request.url).searchParams)
  if (!link) throw redirect('/sign-in?error=auth_failed')
  // Looked up, not used: the token stays valid until the button is pressed.
  const state = await emailLinkState(link)
  return data({ ...link, state }, { headers: { 'Cache-Control': 'no-store' } })
}

export async function action({ request }: ActionFunctionArgs) {
  const link = readLink(await readFormData(request))
  if (!link) throw redirect('/sign-in?error=auth_failed', { status: 303 })
  const { location, headers } = await verifyEmailLink(request, link, { confirmed: true })
  throw redirect(location, { status: 303, headers })
}

export function headers() {
  return { 'Cache-Control': 'no-store' }
}

export default function ConfirmLink() {
  const { state, ...link } = useLoaderData<typeof loader>()
  const purpose =
    state.state === 'valid' || state.state === 'expired'
      ? state.purpose
      : PURPOSE_OF_TYPE[link.type]
  const what = PURPOSES[purpose]
  if (state.state === 'used' || state.state === 'expired') {
    return (
      <AuthCard
        title={state.state === 'used' ? LINK_NOT_VALID : 'This link has expired'}
        footer={<TextLink to="/sign-in">Go to sign in</TextLink>}
      >
        <p className="text-slate-700">
          {state.state === 'used' ? (
            <>
              Each link in our emails works once, for an hour, and a newer email replaces it. This
              one has been used, replaced, or was never one of ours.
            </>
          ) : (
            <>
              This link for <strong>{state.account}</strong> is more than an hour old, and links in
              our emails work for an hour.
            </>
          )}
        </p>
        <Link to={what.again.to} className={BLOCK_BUTTON}>
          {what.again.label}
        </Link>
      </AuthCard>
    )
  }
  return (
    <AuthCard title={what.title}>
      {state.state === 'valid' ? (
        <p className="text-slate-700">
          {what.does(<strong>{state.account}</strong>, state.newEmail)}
        </p>
      ) : null}
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

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
