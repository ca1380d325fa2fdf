// The steps of `npm test` and `npm run test:changed`, several at once while the cores allow;
// each one's output held and printed in one piece when it ends, so parallel steps stay
// readable; a summary, then the end of each failed step's output (where a log's reader lands).
import { spawn } from 'node:child_process'

export interface Step {
  name: string
  command: string
  args: string[]
  env?: NodeJS.ProcessEnv
  skip?: string
  /** An exit code that means "skipped at run time"; the step prints why. */
  skippedExitCode?: number
  /** Names of the steps that must have ended (whatever their result) before this one. */
  after?: string[]
  /** How many cores it keeps busy while it runs (default 1). */
  load?: number
}

export interface StepResult {
  name: string
  status: 'passed' | 'failed' | 'skipped'
  seconds: number
}

const FAILED_TAIL_LINES = 60

function runOne(step: Step, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    const child = spawn(step.command, step.args, {
      cwd,
      env: {
        ...(step.env ?? process.env),
        CI: process.env.CI ?? '1',
        // Output is held in a pipe; keep the colours a terminal would have shown.
        ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk))
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)))
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString() }))
  })
}

/** At most `capacity` cores' worth at once (one step always may run). */
export async function runSteps(
  steps: Step[],
  options: { cwd: string; capacity: number },
): Promise<StepResult[]> {
  const results = new Map<string, StepResult>()
  const failedOutput = new Map<string, string>()
  const waiting = [...steps]
  const running = new Set<Step>()
  const started = Date.now()
  const clock = () => `${Math.round((Date.now() - started) / 1000)}s`.padStart(5)
  const load = (step: Step) => step.load ?? 1

  await new Promise<void>((done) => {
    const next = () =>
      waiting.find((step) => {
        if (!(step.after ?? []).every((name) => results.has(name))) return false
        const busy = [...running].reduce((sum, other) => sum + load(other), 0)
        return step.skip || running.size === 0 || busy + load(step) <= options.capacity
      })
    const startReady = () => {
      for (let step = next(); step; step = next()) {
        waiting.splice(waiting.indexOf(step), 1)
        if (step.skip) {
          console.log(`\n━━ ${step.name}: skipped, ${step.skip}`)
          results.set(step.name, { name: step.name, status: 'skipped', seconds: 0 })
          continue
        }
        running.add(step)
        console.log(`${clock()} ▶ ${step.name}`)
        const stepStarted = Date.now()
        void runOne(step, options.cwd).then(({ code, output }) => {
          running.delete(step)
          const seconds = Math.round((Date.now() - stepStarted) / 100) / 10
          const status =
            code === 0
              ? 'passed'
              : step.skippedExitCode !== undefined && code === step.skippedExitCode
                ? 'skipped'
                : 'failed'
          results.set(step.name, { name: step.name, status, seconds })
          if (status === 'failed') failedOutput.set(step.name, output)
          console.log(`\n━━ ${step.name} (${status}, ${seconds}s)\n${output.trimEnd()}\n`)
          console.log(`${clock()} ■ ${step.name}: ${status}`)
          startReady()
        })
      }
      if (running.size > 0) return
      // Nothing runs and nothing could start: a step waits for a name no step has.
      for (const step of waiting.splice(0)) {
        console.log(`\n━━ ${step.name}: failed, it waits for a step that does not exist`)
        results.set(step.name, { name: step.name, status: 'failed', seconds: 0 })
      }
      done()
    }
    startReady()
  })

  console.log(`\n━━ summary (${Math.round((Date.now() - started) / 1000)}s)`)
  const ordered = steps.map((step) => results.get(step.name)!)
  for (const result of ordered)
    console.log(`  ${result.status.padEnd(7)} ${result.name} (${result.seconds}s)`)
  for (const [name, output] of failedOutput) {
    const lines = output.trimEnd().split('\n')
    const tail = lines.slice(-FAILED_TAIL_LINES)
    const cut = lines.length - tail.length
    console.log(
      `\n━━ ${name} failed; the end of its output${cut ? ` (${cut} lines above it, printed when it ended)` : ''}:\n${tail.join('\n')}`,
    )
  }
  return ordered
}
