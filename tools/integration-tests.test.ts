import { readFileSync } from 'node:fs'
import path from 'node:path'

import { describe, expect, it } from 'vitest'

import { PROJECT_ROOT } from '../tests/local-stack/database'
import {
  formatFunctionsRun,
  FUNCTIONS_RUN_FILE,
  parseFunctionsRun,
  testsRunningLines,
} from './integration-tests'

const map = parseFunctionsRun(
  [
    'commit abc',
    'test 0 tests/integration/a.test.ts',
    'test 1 tests/integration/b.test.ts',
    'test 2 tests/integration/c.test.ts',
    'app/x.server.ts 0-2 3-20:0,1 5-9:1 12-14: 30-31:2',
  ].join('\n'),
)

describe('the test files that run a changed line', () => {
  it('are those that ran the innermost function around it', () => {
    expect(testsRunningLines(map, 'app/x.server.ts', [6])).toEqual(['tests/integration/b.test.ts'])
    expect(testsRunningLines(map, 'app/x.server.ts', [4, 30])?.sort()).toEqual([
      'tests/integration/a.test.ts',
      'tests/integration/b.test.ts',
      'tests/integration/c.test.ts',
    ])
    // A function no test ran: none of them, though they ran the one around it.
    expect(testsRunningLines(map, 'app/x.server.ts', [13])).toEqual([])
  })

  it('outside any function, are those that loaded the module; a file it does not know, null', () => {
    expect(testsRunningLines(map, 'app/x.server.ts', [1])).toHaveLength(3)
    expect(testsRunningLines(map, 'app/y.server.ts', [1])).toBeNull()
  })

  it('reads back what it writes, and the committed map is well formed', () => {
    expect(parseFunctionsRun(formatFunctionsRun(map, ['a comment']))).toEqual(map)
    const committed = parseFunctionsRun(
      readFileSync(path.join(PROJECT_ROOT, FUNCTIONS_RUN_FILE), 'utf8'),
    )
    expect(committed.commit).toMatch(/^[0-9a-f]{40}$/)
    for (const { loaded, functions } of committed.files.values()) {
      for (const index of [...loaded, ...functions.flatMap(({ ran }) => ran)])
        expect(committed.tests[index]).toMatch(/^tests\/.+\.test\.ts$/)
    }
  })
})
