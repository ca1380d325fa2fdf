import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { LOCAL_CATALOG, parseCatalog, readCatalogFile } from './catalog'

const plan = LOCAL_CATALOG.plans[0]

describe('parseCatalog', () => {
  it('refuses a catalogue with a missing id, a bad interval or an id used twice', () => {
    expect(() => parseCatalog({ plans: [] })).toThrow(/non-empty/)
    expect(() => parseCatalog({ plans: [{ ...plan, polar: {} }] })).toThrow(/polar.productId/)
    expect(() => parseCatalog({ plans: [{ ...plan, interval: 'week' }] })).toThrow(/interval/)
    expect(() => parseCatalog({ plans: [plan, plan] })).toThrow(/used twice/)
  })
})

describe('readCatalogFile (the command lines’ catalogue argument)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'catalog-'))
  const file = (name: string, text: string) => {
    const target = path.join(dir, name)
    writeFileSync(target, text)
    return target
  }

  it('seeds the plans of the file it is given, or the sample without one', () => {
    const team = { ...plan, key: 'team', name: 'Team', amount: 9900 }
    expect(readCatalogFile(file('team.json', JSON.stringify({ plans: [team] })))).toEqual({
      plans: [team],
    })
    expect(readCatalogFile(undefined)).toBe(LOCAL_CATALOG)
  })

  it('names the file when it cannot be read or is not a catalogue', () => {
    const broken = file('broken.json', '{ "plans": [')
    expect(() => readCatalogFile(broken)).toThrow(new RegExp(`^${broken}: .*JSON`))
    const wrong = file('wrong.json', JSON.stringify({ plans: [{ ...plan, amount: -1 }] }))
    expect(() => readCatalogFile(wrong)).toThrow(`${wrong}: catalog: plans[0].amount`)
    expect(() => readCatalogFile(path.join(dir, 'missing.json'))).toThrow(/ENOENT/)
  })
})
