import type { IncomingMessage, ServerResponse } from 'node:http'

import { vitePlugin as remix } from '@remix-run/dev'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin } from 'vite'
import tsconfigPaths from 'vite-tsconfig-paths'

declare module '@remix-run/node' {
  interface Future {
    v3_singleFetch: true
  }
}

/**
 * Extra host names the dev server answers (a tunnel that forwards provider webhooks, e.g.
 * `abc.trycloudflare.com`), from DEV_ALLOWED_HOSTS: comma-separated, a leading dot allows
 * every subdomain. Vite refuses other Host headers (DNS rebinding).
 */
export function allowedHosts(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter((host) => /^\.?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host))
}

/** A request for a module that must never reach a browser (server code, secrets). */
export function isServerOnlyPath(url: string): boolean {
  let path: string
  try {
    path = decodeURIComponent(url.split('?')[0])
  } catch {
    return true
  }
  return /\.server(\.[cm]?[jt]sx?)?$|\/\.server\/|(^|\/)\.env(\.|$)/.test(path)
}

/** The dev server answers 404 for server-only modules, whatever path or query asks. */
function denyServerOnlyModules(): Plugin {
  return {
    name: 'deny-server-only-modules',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url && isServerOnlyPath(req.url)) {
          res.statusCode = 404
          res.end('Not found')
          return
        }
        next()
      })
    },
  }
}

type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void

/**
 * The request policy and security headers in development, as server.js runs them, after
 * Vite's own middlewares (the returned hook), so Vite serves its modules and assets itself.
 */
function requestPolicyInDevelopment(): Plugin {
  return {
    name: 'request-policy',
    configureServer(server) {
      return () => {
        server.middlewares.use((req, res, next) => {
          Promise.all([
            server.ssrLoadModule('/app/lib/server/security-headers.server.ts'),
            server.ssrLoadModule('/app/lib/server/request-policy.server.ts'),
          ])
            .then(([headers, policy]) =>
              (headers.responseHeaders as Middleware)(req, res, () =>
                (policy.requestPolicyMiddleware as Middleware)(req, res, next),
              ),
            )
            .catch(next)
        })
      }
    },
  }
}

export default defineConfig({
  server: {
    // LOCAL_APP_PORT moves it (npm run dev passes it, with SITE_URL on it: tools/dev-plan.ts).
    port: Number(process.env.LOCAL_APP_PORT) || 5173,
    strictPort: true,
    host: 'localhost',
    allowedHosts: allowedHosts(process.env.DEV_ALLOWED_HOSTS),
    watch: {
      ignored: ['**/.data/**', '**/.build-*/**', '**/test-results/**', '**/playwright-report/**'],
    },
  },
  plugins: [
    denyServerOnlyModules(),
    requestPolicyInDevelopment(),
    tailwindcss(),
    // On under vitest too: the integration tests load the app's server build
    // (`virtual:remix/server-build`) in their own module graph (tests/integration/harness.ts).
    remix({
      buildDirectory: process.env.BUILD_DIR ?? 'build',
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
        v3_routeConfig: true,
      },
    }),
    tsconfigPaths(),
  ],
  test: {
    // The app's log is silent in the tests unless LOG_LEVEL asks for it.
    env: { LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // `npm run test:coverage`
    coverage: {
      provider: 'v8',
      include: ['app/**'],
      exclude: ['app/**/*.test.{ts,tsx}', 'app/**/test-support/**'],
      reporter: ['text-summary', 'json-summary'],
    },
    projects: [
      // Unit tests of the app's rules and tools, and the checks of configuration and docs:
      // no database.
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            'app/**/*.test.{ts,tsx}',
            'tests/config/**/*.test.ts',
            'tests/docs/**/*.test.ts',
            'tools/**/*.test.ts',
          ],
        },
      },
      // The schema, privileges and ledger, and the app's routes through the real SDKs against
      // the local stack: a migrated database per file, on PGlite or DATABASE_URL's server.
      {
        extends: true,
        test: {
          name: 'database',
          include: [
            'tests/db/**/*.test.ts',
            'tests/integration/**/*.test.ts',
            'tests/setup/**/*.test.ts',
          ],
          globalSetup: ['tests/setup/global-setup.ts'],
          // The test-only provider, registered as a provider in the code is (off by default);
          // `npm run test:map` records which app functions each file runs (tools/test-map.ts).
          setupFiles: [
            'tests/integration/testpay/register.ts',
            ...(process.env.FUNCTIONS_RUN_DIR ? ['tools/record-functions.ts'] : []),
          ],
        },
      },
      // The local stack's own tests, with its own configuration (a package of its own).
      'tests/local-stack',
    ],
  },
})
