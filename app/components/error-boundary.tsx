import { isRouteErrorResponse, useRouteError } from '@remix-run/react'
import type { ReactNode } from 'react'

import { ButtonLink } from './links'

const titles: Record<number, string> = {
  400: 'That request was not valid',
  401: 'Please sign in',
  403: 'You do not have access to this page',
  404: 'Page not found',
  405: 'That action is not allowed here',
  413: 'That submission is too large',
  415: 'That request was not valid',
  429: 'Too many attempts',
  503: 'Back in a moment',
}

/** The shared error boundary: a thrown response's message, else a generic one; never a stack. */
export function GeneralErrorBoundary() {
  const error = useRouteError()
  let status = 500
  let message = 'Something went wrong on our side. Please try again in a moment.'
  if (isRouteErrorResponse(error)) {
    status = error.status
    message =
      typeof error.data === 'string' && error.data.length > 0 && error.data.length < 300
        ? error.data
        : status === 404
          ? 'We could not find the page you were looking for.'
          : message
  } else if (typeof document === 'undefined') {
    // Rendered on the server and in the browser: the server logger cannot be imported here.
    // eslint-disable-next-line no-console
    console.error(error)
  }
  return (
    <MessagePage status={status} title={titles[status] ?? 'Something went wrong'}>
      <p className="mt-4 text-slate-600">{message}</p>
    </MessagePage>
  )
}

/** A page of one centred message: the error pages, the end of a checkout, a deleted account. */
export function MessagePage({
  status,
  title,
  children,
  actions = <ButtonLink to="/">Go to the home page</ButtonLink>,
}: {
  status?: number
  title: string
  children: ReactNode
  actions?: ReactNode
}) {
  return (
    <div className="mx-auto max-w-xl px-4 py-24 text-center">
      {status ? <p className="mb-2 text-sm font-semibold text-brand-700">{status}</p> : null}
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{title}</h1>
      {children}
      <div className="mt-8 flex justify-center gap-3">{actions}</div>
    </div>
  )
}
