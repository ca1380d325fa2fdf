import { errorFunction, wilcoxonRankSum } from 'simple-statistics'

/**
 * The Mann-Whitney U test of two samples (simple-statistics' Wilcoxon rank sum, ties
 * ranked by their average), two-sided, with the normal approximation and continuity
 * correction: right for samples of 20 or more each. `p` is the chance of a difference at
 * least this large between two samples of one distribution.
 */
export function mannWhitneyU(a: number[], b: number[]) {
  const u = wilcoxonRankSum(a, b) - (a.length * (a.length + 1)) / 2
  const mean = (a.length * b.length) / 2
  const sd = Math.sqrt((a.length * b.length * (a.length + b.length + 1)) / 12)
  const z = Math.max(0, Math.abs(u - mean) - 0.5) / sd
  // Two-sided: 2 (1 - Φ(z)) = 1 - erf(z / √2).
  return { u, z, p: Math.min(1, 1 - errorFunction(z / Math.SQRT2)) }
}

/**
 * How well the best single threshold on the value tells the two samples apart (either
 * side), as the share of both samples it classifies right (equal weights): 0.5 is chance,
 * 1 is a perfect split.
 */
export function bestThresholdAccuracy(a: number[], b: number[]) {
  const cuts = [...a, ...b, Number.NEGATIVE_INFINITY].sort((x, y) => x - y)
  let best = 0.5
  for (const cut of cuts) {
    const aBelow = a.filter((value) => value <= cut).length / a.length
    const bBelow = b.filter((value) => value <= cut).length / b.length
    // "a if at or below the cut", or the other way round.
    best = Math.max(best, (aBelow + (1 - bBelow)) / 2, (1 - aBelow + bBelow) / 2)
  }
  return best
}
