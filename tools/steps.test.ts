import os from 'node:os'

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import { runSteps, type Step } from './steps'

const sh = (name: string, script: string, extra: Partial<Step> = {}): Step => ({
  name,
  command: 'sh',
  args: ['-c', script],
  ...extra,
})

const options = { cwd: os.tmpdir(), capacity: 2 }
let printed: string[]
beforeEach(() => {
  printed = []
  vi.spyOn(console, 'log').mockImplementation((line: string) => void printed.push(line))
})
afterEach(() => vi.restoreAllMocks())

describe('runSteps', () => {
  it('runs steps side by side while they fit, and each after the steps it needs', async () => {
    const started = Date.now()
    const results = await runSteps(
      [
        sh('slow', 'sleep 1'),
        sh('beside it', 'sleep 1'),
        sh('after both', 'echo done', { after: ['slow', 'beside it'] }),
      ],
      options,
    )
    // Side by side: the two sleeps took about one sleep, not two.
    expect(Date.now() - started).toBeLessThan(1900)
    expect(results.map((result) => result.status)).toEqual(['passed', 'passed', 'passed'])
    const order = printed.filter((line) => line.includes('▶'))
    expect(order.at(-1)).toContain('after both')
  })

  it('holds one at a time when the capacity says so', async () => {
    const started = Date.now()
    await runSteps([sh('one', 'sleep 0.5'), sh('two', 'sleep 0.5')], { ...options, capacity: 1 })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000)
  })

  it('prints each step’s output in one piece, stdout and stderr, when it ends', async () => {
    await runSteps(
      [sh('talkative', 'echo first; sleep 0.3; echo second >&2'), sh('quick', 'echo interjection')],
      options,
    )
    const talkative = printed.find((line) => line.includes('━━ talkative'))
    expect(talkative).toMatch(/━━ talkative \(passed, [\d.]+s\)\nfirst\nsecond/)
    expect(talkative).not.toContain('interjection')
  })

  it('reports failed, skipped at run time, skipped beforehand, and a step waiting for nothing', async () => {
    const results = await runSteps(
      [
        sh('fails', 'exit 3'),
        sh('skips itself', 'exit 75', { skippedExitCode: 75 }),
        sh('not here', 'exit 0', { skip: 'no server' }),
        sh('runs after a failure', 'exit 0', { after: ['fails'] }),
        sh('waits for a ghost', 'exit 0', { after: ['no such step'] }),
      ],
      options,
    )
    expect(results.map(({ name, status }) => [name, status])).toEqual([
      ['fails', 'failed'],
      ['skips itself', 'skipped'],
      ['not here', 'skipped'],
      ['runs after a failure', 'passed'],
      ['waits for a ghost', 'failed'],
    ])
    const summary = printed.slice(printed.findIndex((line) => line.includes('━━ summary')))
    expect(summary).toContainEqual(expect.stringMatching(/^ {2}failed {2}fails \([\d.]+s\)$/))
    expect(summary).toContainEqual(expect.stringMatching(/^ {2}skipped not here \(0s\)$/))
  })
})

describe('a failed step after the summary', () => {
  it('repeats the end of its output, where a long log is read first', async () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('; echo ')
    await runSteps(
      [sh('breaks', `echo ${lines}; echo cause of failure; exit 1`), sh('fine', 'echo ok')],
      options,
    )
    const afterSummary = printed.slice(printed.findIndex((line) => line.includes('━━ summary')))
    const repeated = afterSummary.find((line) => line.includes('━━ breaks failed'))
    expect(repeated).toContain('41 lines above it')
    expect(repeated).toMatch(/line 100\ncause of failure$/)
    expect(repeated).not.toContain('line 41\n')
    expect(afterSummary.join('\n')).not.toContain('━━ fine failed')
  })
})
