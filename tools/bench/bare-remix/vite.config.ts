// The bench's floor (docs/performance.md): the app's Remix versions and future flags, nothing else.
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { vitePlugin as remix } from '@remix-run/dev'
import { defineConfig } from 'vite'

const here = path.dirname(fileURLToPath(import.meta.url))

export default defineConfig({
  root: here,
  logLevel: 'warn',
  plugins: [
    remix({
      appDirectory: path.join(here, 'app'),
      buildDirectory: path.resolve(here, '../../..', process.env.BUILD_DIR ?? '.build-bench-bare'),
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
})
