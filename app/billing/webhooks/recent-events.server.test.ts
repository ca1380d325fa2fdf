import { describe, expect, it } from 'vitest'

import { RecentEvents } from './recent-events.server'

describe('RecentEvents', () => {
  it('remembers an added key and nothing else', () => {
    const recent = new RecentEvents()
    recent.add('stripe:evt_1')
    expect(recent.has('stripe:evt_1')).toBe(true)
    expect(recent.has('stripe:evt_2')).toBe(false)
    expect(recent.has('polar:evt_1')).toBe(false)
  })

  it('forgets a key older than the maximum age', () => {
    let now = 1_000_000
    const recent = new RecentEvents(100, 60_000, () => now)
    recent.add('stripe:evt_1')
    now += 59_999
    expect(recent.has('stripe:evt_1')).toBe(true)
    now += 1
    expect(recent.has('stripe:evt_1')).toBe(false)
    expect(recent.size).toBe(0)
  })

  it.each([
    ['keeps at most maxEntries, dropping the oldest first', 3, 'abcd', 'bcd', 'a'],
    ['re-adding a key makes it the newest', 2, 'abac', 'ac', 'b'],
  ])('%s', (_, maxEntries, added, kept, dropped) => {
    const recent = new RecentEvents(maxEntries)
    for (const id of added) recent.add(id)
    expect(recent.size).toBe(kept.length)
    expect([...kept].every((id) => recent.has(id))).toBe(true)
    expect(recent.has(dropped)).toBe(false)
  })
})
