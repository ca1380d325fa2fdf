import { flatRoutes } from '@remix-run/fs-routes'
import type { RouteConfig } from '@remix-run/route-config'

// The routes are the files of app/routes/, named by Remix's flat-routes convention (the same
// convention React Router v7's `@react-router/fs-routes` reads). Tests and styles beside
// them are not routes.
export default flatRoutes({
  ignoredRouteFiles: ['**/*.test.ts', '**/*.test.tsx', '**/*.css'],
}) satisfies RouteConfig
