// Preloaded into the benchmark's app server (`node --import`). The server runs with
// NODE_ENV=test, because with NODE_ENV=production the app (rightly) refuses the local stack's
// keys and loopback URLs. React picks its build from NODE_ENV when first required, and its
// development build renders several times slower than production: load React's production
// builds here first, so that the pages are measured as production serves them. Nothing else
// changes: the app reads its configuration from the untouched NODE_ENV afterwards.
import { createRequire } from 'node:module'
import process from 'node:process'

const require = createRequire(import.meta.url)
const previous = process.env.NODE_ENV
process.env.NODE_ENV = 'production'
for (const id of ['react', 'react/jsx-runtime', 'react-dom', 'react-dom/server']) require(id)
if (previous === undefined) delete process.env.NODE_ENV
else process.env.NODE_ENV = previous

const loaded = Object.keys(require.cache)
if (!loaded.some((file) => file.includes('react-dom-server-legacy.node.production'))) {
  throw new Error('production-react: React production build was not loaded')
}
