// `npm run build`, after the app: each app `*.cli.ts` (the deployment's commands) bundled into
// `$BUILD_DIR/commands/<name>.js`, plain JavaScript for a production install without tsx.
import { readdirSync } from 'node:fs'
import path from 'node:path'

import { build } from 'vite'

import { PROJECT_ROOT } from '../tests/local-stack/database'

const app = path.join(PROJECT_ROOT, 'app')
const commands = readdirSync(app, { recursive: true, encoding: 'utf8' }).filter((file) =>
  file.endsWith('.cli.ts'),
)

await build({
  configFile: false,
  root: PROJECT_ROOT,
  logLevel: 'warn',
  publicDir: false,
  resolve: { alias: { '~': app } },
  build: {
    ssr: true,
    target: 'node22',
    outDir: path.join(PROJECT_ROOT, process.env.BUILD_DIR ?? 'build', 'commands'),
    emptyOutDir: true,
    rollupOptions: {
      input: Object.fromEntries(
        commands.map((file) => [path.basename(file, '.cli.ts'), path.join(app, file)]),
      ),
      output: { entryFileNames: '[name].js', chunkFileNames: 'shared/[name]-[hash].js' },
    },
  },
})
console.log(`commands: ${commands.map((file) => path.basename(file, '.cli.ts')).join(', ')}`)
