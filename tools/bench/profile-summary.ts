/**
 * A text summary of a V8 CPU profile (`BENCH_CPU_PROF`, docs/performance.md, "Where the time
 * goes"): where the process spent its samples, by package (self time), by function (self
 * time) and by function including what it called (inclusive time, each function counted once
 * per sample even when recursive).
 *
 *   node --import tsx tools/bench/profile-summary.ts <file.cpuprofile> [rows=25] [filter]
 *
 * `filter` (a regexp on function names) keeps only the samples whose stack contains a match,
 * e.g. `action` for the webhook actions, `loader|render` for the pages.
 */
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface Profile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

const [file, rowsArg, filterArg] = process.argv.slice(2)
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [rows] [filter]')
  process.exit(2)
}
const rows = Number(rowsArg ?? 25)
const filter = filterArg ? new RegExp(filterArg) : null
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile

const byId = new Map(profile.nodes.map((node) => [node.id, node]))
const parent = new Map<number, number>()
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id)

/** Where a frame's code comes from: a package, the app's build, Node itself, or V8. */
function origin(url: string) {
  if (!url) return '(native / V8)'
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0]
  const packageMatch = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)
  if (packageMatch) return packageMatch[1]
  if (url.includes('/.build-')) return '(app build)'
  if (url.endsWith('/server.js')) return '(server.js)'
  if (url.endsWith('/server-app.js')) return '(server-app.js)'
  return url
}
const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame
  const name = functionName || '(anonymous)'
  return url ? `${name} ${origin(url)}:${lineNumber + 1}` : name
}

const self = new Map<string, number>()
const selfByOrigin = new Map<string, number>()
const inclusive = new Map<string, number>()
let total = 0
let kept = 0
profile.samples.forEach((sampleId, index) => {
  const delta = profile.timeDeltas[index] ?? 0
  total += delta
  const stack: ProfileNode[] = []
  for (let id: number | undefined = sampleId; id !== undefined; id = parent.get(id)) {
    stack.push(byId.get(id)!)
  }
  if (filter && !stack.some((node) => filter.test(node.callFrame.functionName))) return
  const leaf = stack[0]
  if (leaf.callFrame.functionName === '(idle)') return
  kept += delta
  self.set(label(leaf), (self.get(label(leaf)) ?? 0) + delta)
  const where = origin(leaf.callFrame.url)
  selfByOrigin.set(where, (selfByOrigin.get(where) ?? 0) + delta)
  for (const name of new Set(stack.map(label)))
    inclusive.set(name, (inclusive.get(name) ?? 0) + delta)
})

const ms = (us: number) => (us / 1000).toFixed(0).padStart(7)
const pct = (us: number) => `${((us / kept) * 100).toFixed(1).padStart(5)} %`
const top = (map: Map<string, number>, title: string) => {
  console.log(`\n${title}`)
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows))
    console.log(`${ms(us)} ms ${pct(us)}  ${name}`)
}
console.log(
  `${file}: ${ms(total).trim()} ms sampled, ${ms(kept).trim()} ms busy${filter ? ` in stacks matching /${filter.source}/` : ''}`,
)
top(selfByOrigin, 'self time by origin')
top(self, 'self time by function')
top(inclusive, 'inclusive time by function')
