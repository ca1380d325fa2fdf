import { readFileSync } from 'node:fs'

import { describe, expect, it } from 'vitest'

import { E2E } from '../tests/e2e/ports'
import { EPHEMERAL_PORTS_START, TOOL_PORTS } from './ports'

const fixedPorts = (value: unknown): number[] =>
  typeof value === 'number'
    ? [value]
    : Array.isArray(value) || (typeof value === 'object' && value !== null)
      ? Object.values(value).flatMap(fixedPorts)
      : []

const e2ePorts = [E2E.appPort, E2E.supabasePort, E2E.stripePort, E2E.polarPort, E2E.smtpPort]
const allPorts = [...fixedPorts(TOOL_PORTS), ...e2ePorts]

describe('fixed loopback ports of the tests and tools', () => {
  it('lie below the range outgoing connections take their local ports from', () => {
    for (const port of allPorts) {
      expect(port).toBeGreaterThanOrEqual(1024)
      expect(port).toBeLessThan(EPHEMERAL_PORTS_START)
    }
  })

  it('lie below this machine’s range too, where it can be read', () => {
    let range: string
    try {
      range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
    } catch {
      return
    }
    const [low] = range.trim().split(/\s+/).map(Number)
    for (const port of allPorts)
      expect(port, `port ${port} inside ${range.trim()}`).toBeLessThan(low)
  })

  it('differ between tools that npm test runs side by side (soak, chaos soak, browser tests)', () => {
    const sideBySide = [
      ...fixedPorts(TOOL_PORTS.soak),
      ...fixedPorts(TOOL_PORTS.chaos),
      ...e2ePorts,
    ]
    expect(new Set(sideBySide).size).toBe(sideBySide.length)
  })
})
