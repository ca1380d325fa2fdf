// CPU time per request of the bench's processes, from /proc (Linux): on a shared machine it
// moves far less than req/s, and says which process bounds the throughput.
import { readdirSync, readFileSync } from 'node:fs'

export type CpuGroups = Record<string, number>

/** utime + stime of one process in ms (USER_HZ 100); 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

const postgresPids = () =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres'
      } catch {
        return false
      }
    })

/** CPU ms so far per group and process: the named pids, and `database` (postgres). */
type CpuSnapshot = Record<string, Map<number, number>>

export function cpuSnapshot(pids: Record<string, number | undefined>, withDatabase: boolean) {
  const snapshot: CpuSnapshot = {}
  for (const [name, pid] of Object.entries(pids))
    if (pid !== undefined) snapshot[name] = new Map([[pid, processCpuMs(pid)]])
  if (withDatabase)
    snapshot.database = new Map(postgresPids().map((pid) => [pid, processCpuMs(pid)]))
  return snapshot
}

/**
 * CPU ms per request of each group between two snapshots. A process that started in between
 * counts whole; one that ended in between is missed (a pool's closed backends).
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
