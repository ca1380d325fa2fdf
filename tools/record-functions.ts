// Setup file of the `database` project under `npm run test:map` (FUNCTIONS_RUN_DIR): V8's
// function coverage of the test's worker, where the app runs, as the app/ functions that ran
// by their source lines (through each module's source map).
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

import { GREATEST_LOWER_BOUND, originalPositionFor, TraceMap } from '@jridgewell/trace-mapping'
import { afterAll, expect } from 'vitest'

import { PROJECT_ROOT } from '../tests/local-stack/database'

/** An app file's functions by first-last line: those that ran and those that did not. */
export interface FileRun {
  ran: string[]
  idle: string[]
}

const directory = process.env.FUNCTIONS_RUN_DIR
const session = new Session()
if (directory) {
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false })
  afterAll(async () => {
    const testFile = path.relative(PROJECT_ROOT, expect.getState().testPath ?? '')
    const { result } = await session.post('Profiler.takePreciseCoverage')
    await session.post('Debugger.enable')
    const files: Record<string, FileRun> = {}
    for (const script of result) {
      const file = path.relative(
        PROJECT_ROOT,
        script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url,
      )
      if (!file.startsWith('app/') || /\.test\.tsx?$/.test(file)) continue
      const { scriptSource } = await session.post('Debugger.getScriptSource', {
        scriptId: script.scriptId,
      })
      files[file] = functionsOf(scriptSource, script.functions)
    }
    writeFileSync(
      path.join(directory, `${testFile.replaceAll('/', '__')}.json`),
      JSON.stringify({ testFile, files }),
    )
  })
}

interface FunctionCoverage {
  ranges: { startOffset: number; endOffset: number; count: number }[]
}

/**
 * The lines of each function of a module as vitest ran it (vite-node's transform, wrapped in
 * one line-1 function whose length the map's columns do not count), by the module's map.
 */
function functionsOf(source: string, functions: FunctionCoverage[]): FileRun {
  const inline = /\/\/# sourceMappingURL=data:application\/json;[^,]*base64,(\S+)\s*\}\}$/.exec(
    source,
  )
  // Without a map no line is known: the module counts as loaded, each change as its top level.
  if (!inline) return { ran: [], idle: [] }
  // vite-node's inline maps name no source: the one source is the module itself.
  const map = new TraceMap({
    sources: [''],
    ...JSON.parse(Buffer.from(inline[1], 'base64').toString()),
  })
  const wrapper = source.startsWith("'use strict';async (") ? source.indexOf('=>{{') + 4 : 0
  const lineStarts = [0]
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1))
    lineStarts.push(i + 1)
  const lineOf = (offset: number) => {
    const line = lineStarts.findLastIndex((start) => start <= offset)
    const column = offset - lineStarts[line] - (line === 0 ? wrapper : 0)
    return originalPositionFor(map, { line: line + 1, column, bias: GREATEST_LOWER_BOUND }).line
  }
  const ran = new Set<string>()
  const all = new Set<string>()
  for (const { ranges } of functions) {
    const [{ startOffset, endOffset, count }] = ranges
    // The module's own body (and V8's function around the whole script).
    if (startOffset < wrapper || (startOffset === 0 && endOffset >= source.length - 1)) continue
    const start = lineOf(startOffset)
    const end = lineOf(endOffset - 1)
    if (start === null || end === null) continue
    const lines = `${start}-${end}`
    all.add(lines)
    if (count > 0) ran.add(lines)
  }
  return { ran: [...ran], idle: [...all].filter((lines) => !ran.has(lines)) }
}
