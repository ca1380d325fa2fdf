/**
 * CPU time of the benchmark's processes, from /proc (Linux): how much of a core each path
 * costs the app, the local stack and the database per request. A closed-loop load test on
 * one machine measures throughput under contention; CPU per request says which process
 * bounds it, and what the app alone would sustain where Supabase runs elsewhere.
 */
import { readdirSync, readFileSync } from 'node:fs'

const TICKS_PER_SECOND = 100 // USER_HZ, 100 on every Linux this runs on

export type CpuGroups = Record<string, number>

/** utime + stime of one process, in ms; 0 when it is gone or /proc is not there. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    return (ticks * 1000) / TICKS_PER_SECOND
  } catch {
    return 0
  }
}

/** Every process whose command name is `postgres` (a local server's backends). */
function postgresPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number)
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres'
        } catch {
          return false
        }
      })
  } catch {
    return []
  }
}

/** CPU ms used so far, per group and process: named pids, plus `database` (postgres). */
export type CpuSnapshot = Record<string, Map<number, number>>

export function cpuSnapshot(
  pids: Record<string, number | undefined>,
  withDatabase: boolean,
): CpuSnapshot {
  const snapshot: CpuSnapshot = {}
  for (const [name, pid] of Object.entries(pids)) {
    if (pid !== undefined) snapshot[name] = new Map([[pid, processCpuMs(pid)]])
  }
  if (withDatabase) {
    snapshot.database = new Map(postgresPids().map((pid) => [pid, processCpuMs(pid)]))
  }
  return snapshot
}

/**
 * CPU ms per request of each group between two snapshots (2 decimals). A process that
 * started in between counts whole; one that ended in between is not seen after, so its
 * last share is missed (database backends of a pool that closes idle connections).
 */
export function cpuPerRequest(before: CpuSnapshot, after: CpuSnapshot, requests: number) {
  const perRequest: CpuGroups = {}
  for (const [name, processes] of Object.entries(after)) {
    let used = 0
    for (const [pid, ms] of processes) used += Math.max(0, ms - (before[name]?.get(pid) ?? 0))
    perRequest[name] = requests > 0 ? Math.round((used / requests) * 100) / 100 : 0
  }
  return perRequest
}
