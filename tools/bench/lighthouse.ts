// Lighthouse (default config: mobile, simulated throttling) in headless Chromium.
import * as chromeLauncher from 'chrome-launcher'

export interface LighthouseScores {
  path: string
  performance?: number
  accessibility?: number
  failedAccessibility?: string[]
  error?: string
}

export async function runLighthouse(origin: string, paths: string[]): Promise<LighthouseScores[]> {
  const { default: lighthouse } = await import('lighthouse')
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: [
      ...['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
      ...['--disable-background-networking', '--disable-component-update'],
    ],
  })
  const scores: LighthouseScores[] = []
  try {
    for (const path of paths) {
      const result = await lighthouse(`${origin}${path}`, {
        port: chrome.port,
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
      }).catch((error: unknown) => String(error))
      const lhr = typeof result === 'object' ? result?.lhr : undefined
      if (!lhr || lhr.runtimeError) {
        scores.push({ path, error: lhr?.runtimeError?.message ?? String(result) })
        continue
      }
      const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100)
      scores.push({
        path,
        performance: score('performance'),
        accessibility: score('accessibility'),
        failedAccessibility: lhr.categories.accessibility?.auditRefs
          .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score === 0)
          .map((ref) => ref.id),
      })
    }
  } finally {
    chrome.kill()
  }
  return scores
}
