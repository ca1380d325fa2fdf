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

  it('keeps at most maxEntries, dropping the oldest first', () => {
    const recent = new RecentEvents(3)
    for (const id of ['a', 'b', 'c', 'd']) recent.add(id)
    expect(recent.size).toBe(3)
    expect(recent.has('a')).toBe(false)
    expect(['b', 'c', 'd'].every((id) => recent.has(id))).toBe(true)
  })

  it('re-adding a key makes it the newest', () => {
    const recent = new RecentEvents(2)
    for (const id of ['a', 'b', 'a', 'c']) recent.add(id)
    expect(recent.has('a')).toBe(true)
    expect(recent.has('b')).toBe(false)
  })
})
