/** The browser-test server: the local stack on fixed ports, server.js on the production build. */
import { spawn } from 'node:child_process'
import path from 'node:path'

import { PROJECT_ROOT } from '../local-stack/database'
import { SUITE_AUTH_LIMITS } from '../local-stack/stack'
import { startAppStack } from '../setup/stack'
import { E2E } from './ports'

const stack = await startAppStack({
  siteUrl: E2E.siteUrl,
  ports: {
    supabase: E2E.supabasePort,
    stripe: E2E.stripePort,
    polar: E2E.polarPort,
    smtp: E2E.smtpPort,
  },
  retry: { attempts: 4, baseDelayMs: 250 },
  // The new keys, and each browser's address forwarded to the auth server.
  supabaseKeys: 'new',
  // A test override (the local stack's README): no hourly mail budget or per-IP limits.
  supabaseAuth: { ...SUITE_AUTH_LIMITS, sbForwardedFor: true },
})

const app = spawn(
  process.execPath,
  [path.join(PROJECT_ROOT, 'server.js'), `${process.env.BUILD_DIR ?? 'build'}/server/index.js`],
  {
    cwd: PROJECT_ROOT,
    stdio: 'inherit',
    env: {
      ...process.env,
      ...stack.env,
      NODE_ENV: 'test',
      // The browser tests act as many clients behind one proxy (tests/e2e/fixtures.ts).
      TRUSTED_PROXY_COUNT: '1',
      PORT: String(E2E.appPort),
      HOST: '127.0.0.1',
      // Deliver queued mails promptly (the inbox test waits for them).
      MAIL_POLL_INTERVAL_MS: '500',
      MAIL_RETRY_BASE_MS: '1000',
    },
  },
)

async function shutdown() {
  app.kill('SIGTERM')
  await stack.close()
  process.exit(0)
}
process.on('SIGTERM', shutdown)
process.on('SIGINT', shutdown)
app.on('exit', (code) => {
  if (code !== null && code !== 0) {
    console.error(`the app server exited with ${code}`)
    void stack.close().then(() => process.exit(1))
  }
})
