/**
 * Lighthouse (the npm package) in Debian's Chromium, headless, against the benchmark's app:
 * performance and accessibility scores of a few public pages. Lighthouse's default config
 * (mobile emulation, simulated throttling) is used unchanged.
 */
import * as chromeLauncher from 'chrome-launcher'

export interface LighthouseScores {
  path: string
  performance: number | null
  accessibility: number | null
  /** Largest Contentful Paint and Total Blocking Time, ms (simulated). */
  lcpMs?: number
  tbtMs?: number
  /** Accessibility audits that failed, by id. */
  failedAccessibility?: string[]
  error?: string
}

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-gpu',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

export async function runLighthouse(origin: string, paths: string[]): Promise<LighthouseScores[]> {
  const { default: lighthouse } = await import('lighthouse')
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    chromeFlags: CHROMIUM_FLAGS,
  })
  const scores: LighthouseScores[] = []
  try {
    for (const path of paths) {
      try {
        const result = await lighthouse(`${origin}${path}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
        })
        const lhr = result?.lhr
        if (!lhr) throw new Error('no result')
        if (lhr.runtimeError) throw new Error(lhr.runtimeError.message)
        const score = (id: string) => {
          const value = lhr.categories[id]?.score
          return value == null ? null : Math.round(value * 100)
        }
        const failedAccessibility = (lhr.categories.accessibility?.auditRefs ?? [])
          .filter((ref) => ref.weight > 0 && lhr.audits[ref.id]?.score === 0)
          .map((ref) => ref.id)
        scores.push({
          path,
          performance: score('performance'),
          accessibility: score('accessibility'),
          lcpMs: Math.round(lhr.audits['largest-contentful-paint']?.numericValue ?? NaN),
          tbtMs: Math.round(lhr.audits['total-blocking-time']?.numericValue ?? NaN),
          failedAccessibility,
        })
      } catch (error) {
        scores.push({ path, performance: null, accessibility: null, error: String(error) })
      }
    }
  } finally {
    chrome.kill()
  }
  return scores
}
