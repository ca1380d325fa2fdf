import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { afterEach, describe, expect, it } from 'vitest'

import { findSecrets } from './scan'

let dir: string | undefined
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true })
})

describe('findSecrets', () => {
  it('reports each file and secret, verbatim or escaped in a string literal', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scan-'))
    await mkdir(path.join(dir, 'assets'))
    await writeFile(path.join(dir, 'assets/a.js'), 'const k = "sk_test_abc"')
    await writeFile(path.join(dir, 'assets/b.js'), 'const w = "wh\\"sec"')
    await writeFile(path.join(dir, 'clean.css'), 'body{}')
    const { findings, filesScanned } = await findSecrets(dir, {
      STRIPE_SECRET_KEY: 'sk_test_abc',
      STRIPE_WEBHOOK_SECRET: 'wh"sec',
      POLAR_ACCESS_TOKEN: undefined,
    })
    expect(filesScanned).toBe(3)
    expect(findings).toEqual([
      { file: path.join('assets', 'a.js'), secret: 'STRIPE_SECRET_KEY' },
      { file: path.join('assets', 'b.js'), secret: 'STRIPE_WEBHOOK_SECRET' },
    ])
  })

  it('refuses an empty or missing directory rather than passing it', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scan-'))
    await expect(findSecrets(dir, { A: 'x' })).rejects.toThrow(/no files/)
    await expect(findSecrets(path.join(dir, 'nope'), { A: 'x' })).rejects.toThrow()
  })
})
