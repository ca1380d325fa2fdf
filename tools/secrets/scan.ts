import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'

/** The server secrets that must never reach a browser. */
export const SECRET_NAMES = [
  'SUPABASE_SERVICE_ROLE_KEY',
  'STRIPE_SECRET_KEY',
  'STRIPE_WEBHOOK_SECRET',
  'POLAR_ACCESS_TOKEN',
  'POLAR_WEBHOOK_SECRET',
] as const

export type SecretName = (typeof SECRET_NAMES)[number]

export interface Finding {
  file: string
  secret: string
}

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* files(full)
    else if (entry.isFile()) yield full
  }
}

/**
 * Every file under `dir` that contains one of `secrets` (by name), verbatim or as it would
 * appear inside a JSON or JavaScript string literal. Throws if `dir` has no file at all, so
 * a wrong path cannot pass as "nothing found".
 */
export async function findSecrets(
  dir: string,
  secrets: Partial<Record<string, string>>,
): Promise<{ findings: Finding[]; filesScanned: number }> {
  const needles = Object.entries(secrets).flatMap(([name, value]) =>
    value ? [...new Set([value, JSON.stringify(value).slice(1, -1)])].map((n) => [name, n]) : [],
  )
  const findings: Finding[] = []
  let filesScanned = 0
  for await (const file of files(dir)) {
    filesScanned++
    const text = (await readFile(file)).toString('latin1')
    for (const [name, needle] of needles) {
      if (text.includes(needle)) findings.push({ file: path.relative(dir, file), secret: name })
    }
  }
  if (filesScanned === 0) throw new Error(`no files under ${dir}: is that the client build?`)
  return { findings, filesScanned }
}
