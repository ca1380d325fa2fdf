import type { MetaFunction } from '@remix-run/node'

export async function loader() {
  throw new Response('We could not find the page you were looking for.', { status: 404 })
}

export const action = () => loader()

export const meta: MetaFunction = () => [{ title: 'Page not found | Subscribely' }]

export {
  GeneralErrorBoundary as default,
  GeneralErrorBoundary as ErrorBoundary,
} from '~/components/error-boundary'
