import type { MetaFunction } from '@remix-run/node'

import { GeneralErrorBoundary } from '~/components/error-boundary'

export async function loader() {
  throw new Response('We could not find the page you were looking for.', { status: 404 })
}

export async function action() {
  throw new Response('We could not find the page you were looking for.', { status: 404 })
}

export default function NotFound() {
  return <GeneralErrorBoundary />
}

export const meta: MetaFunction = () => [{ title: 'Page not found | Subscribely' }]

export { GeneralErrorBoundary as ErrorBoundary } from '~/components/error-boundary'
