import { gzipSync } from 'node:zlib'

import { describe, expect, it } from 'vitest'

import { parseRemixManifest, weighPages } from './bundle-size'

const manifestSource = `window.__remixManifest=${JSON.stringify({
  entry: { module: '/assets/entry.js', imports: ['/assets/react.js'] },
  routes: {
    root: { id: 'root', path: '', module: '/assets/root.js', imports: ['/assets/react.js'] },
    'routes/_index': { id: 'routes/_index', parentId: 'root', index: true, module: '/assets/i.js' },
    'routes/dashboard': {
      id: 'routes/dashboard',
      parentId: 'root',
      path: 'dashboard',
      module: '/assets/d.js',
    },
    'routes/dashboard.billing': {
      id: 'routes/dashboard.billing',
      parentId: 'routes/dashboard',
      path: 'billing',
      module: '/assets/b.js',
      imports: ['/assets/forms.js', '/assets/react.js'],
    },
    'routes/api.hook': {
      id: 'routes/api.hook',
      parentId: 'root',
      path: 'api/hook',
      module: '/assets/e.js',
    },
  },
})};`

const files: Record<string, string> = {
  '/assets/manifest.js': manifestSource,
  '/assets/entry.js': 'entry();'.repeat(10),
  '/assets/react.js': 'react();'.repeat(100),
  '/assets/root.js': 'root();',
  '/assets/i.js': 'index();',
  '/assets/d.js': 'dashboard();',
  '/assets/b.js': 'billing();',
  '/assets/forms.js': 'forms();'.repeat(50),
  '/assets/e.js': '\n',
}
const read = (file: string) => Buffer.from(files[file] ?? '')
const gz = (file: string) => gzipSync(read(file), { level: 9 }).length

describe('first-load JS per page', () => {
  const pages = weighPages(parseRemixManifest(manifestSource), read, '/assets/manifest.js')

  it('weighs leaf pages only, skipping empty (resource route) modules', () => {
    expect(pages.map((page) => page.path).sort()).toEqual(['/', '/dashboard/billing'])
  })

  it('counts the manifest, the entry, and every route of the chain with its imports, once each', () => {
    const billing = pages.find((page) => page.path === '/dashboard/billing')!
    const expected = [
      '/assets/manifest.js',
      '/assets/entry.js',
      '/assets/react.js',
      '/assets/root.js',
      '/assets/d.js',
      '/assets/b.js',
      '/assets/forms.js',
    ]
    expect(billing.files.sort()).toEqual([...expected].sort())
    expect(billing.gzipBytes).toBe(expected.reduce((sum, file) => sum + gz(file), 0))
  })
})
