import { afterEach, expect, test, vi } from 'vitest'
import { logger } from './logger.server'

afterEach(() => {
  vi.restoreAllMocks()
  vi.unstubAllEnvs()
})

function captured(stream: 'log' | 'error') {
  const spy = vi.spyOn(console, stream).mockImplementation(() => {})
  return () => spy.mock.calls.map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
}

test('one JSON line per entry: warnings and errors on stderr, the rest on stdout', () => {
  vi.stubEnv('LOG_LEVEL', 'info')
  const out = captured('log')
  const err = captured('error')
  logger.info('contact: new message', { contact: { email: 'ada@example.com' } })
  logger.warn('cross-site request refused', { path: '/sign-in' })
  expect(out()).toEqual([
    expect.objectContaining({
      level: 'info',
      message: 'contact: new message',
      contact: { email: 'ada@example.com' },
    }),
  ])
  expect(err()).toEqual([expect.objectContaining({ level: 'warn', path: '/sign-in' })])
})

test('an Error keeps its name, message and stack (JSON alone would write {})', () => {
  const err = captured('error')
  logger.error('contact: submission failed', { error: new TypeError('delivery down') })
  const [entry] = err()
  expect(entry.error).toMatchObject({ name: 'TypeError', message: 'delivery down' })
  expect(String((entry.error as { stack: string }).stack)).toContain('logger.server.test.ts')
})

test('entries below LOG_LEVEL are dropped', () => {
  vi.stubEnv('LOG_LEVEL', 'error')
  const out = captured('log')
  const err = captured('error')
  logger.info('quiet')
  logger.warn('quiet too')
  logger.error('loud')
  expect(out()).toEqual([])
  expect(err()).toEqual([expect.objectContaining({ message: 'loud' })])
})
