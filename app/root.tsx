import { data, type LinksFunction, type LoaderFunctionArgs } from '@remix-run/node'
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
} from '@remix-run/react'

import { getOptionalUser } from '~/auth/session.server'
import { GeneralErrorBoundary } from '~/components/error-boundary'
import { PageNotice } from '~/components/page-notice'
import { SiteFooter } from '~/components/site-footer'
import { SiteHeader } from '~/components/site-header'
import { useNonce } from '~/lib/pages/nonce'
import stylesheet from '~/tailwind.css?url'

export const links: LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
]

export async function loader({ request }: LoaderFunctionArgs) {
  const { user, headers } = await getOptionalUser(request)
  // `data`, not a Response: Remix would read a Response's JSON back only to encode it again.
  return data({ user: user ? { id: user.id, email: user.email } : null }, { headers })
}

export type RootLoaderData = { user: { id: string; email: string } | null }

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<RootLoaderData>('root')
  const nonce = useNonce()
  return (
    <html lang="en" className="h-full">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className="flex min-h-full flex-col">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:rounded focus:bg-white focus:px-3 focus:py-2"
        >
          Skip to content
        </a>
        <SiteHeader user={data?.user ?? null} />
        <main id="main" className="flex-1">
          <PageNotice />
          {children}
        </main>
        <SiteFooter signedIn={Boolean(data?.user)} />
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  )
}

export default function App() {
  return <Outlet />
}

export function ErrorBoundary() {
  return <GeneralErrorBoundary />
}
