/**
 * Contract: every object the emulator produces has every field of Stripe's published
 * fixture of its type (contract/stripe-fixtures3.json), with the same JSON type, and
 * conforms to the pinned API version's type in stripe-node (no missing or unknown field,
 * no wrong type or enum value). The coverage per type is printed.
 */
import { readFileSync } from 'node:fs'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type Problem, validate } from '../sdk-types/validate'
import { compareWithFixture } from './contract/compare'
import { collectSamples, type Sample } from './contract/samples'
import { loadStripeTypes, type ObjectKind, STRIPE_TYPES, WIRE_OPTIONS } from './contract/types'
import { API_VERSION } from './objects'
import { setupStack } from './test-support'

/**
 * The types the app reads (app/billing/stripe, app/subscriptions): checkout sessions
 * (create, retrieve), portal sessions, subscriptions with their items and prices
 * (webhooks, retrieve, list), invoices with their lines (webhooks), invoice payments
 * (the payment intent and its card payment method), events and list envelopes. These must
 * match the fixtures fully.
 */
const APP_READS: ObjectKind[] = [
  'billing_portal.session',
  'checkout.session',
  'event',
  'invoice',
  'invoice_payment',
  'line_item',
  'list',
  'payment_intent',
  'payment_method',
  'price',
  'subscription',
  'subscription_item',
]

/**
 * A field real Stripe sends that stripe-node's types leave out: `total_count` on the lists
 * embedded in an object (subscription items, invoice lines), as Stripe's own API reference
 * examples show. Top-level list responses have none.
 */
function sentThoughUndeclared(sample: Sample, problem: Problem) {
  if (problem.kind !== 'unknown' || !problem.path.endsWith('.total_count')) return false
  const embedded = /^(subscription\.items|invoice\.lines)$/.test(sample.source)
  return embedded
    ? problem.path === '$.total_count'
    : /\.(items|lines)\.total_count$/.test(problem.path)
}

const fixtures = JSON.parse(
  readFileSync(new URL('./contract/stripe-fixtures3.json', import.meta.url), 'utf8'),
).resources as Record<string, Record<string, unknown>>

/** The fixture an object is compared with: lists and events are compared as envelopes. */
function fixtureOf(kind: ObjectKind): Record<string, unknown> {
  if (kind === 'list') return { ...(fixtures.subscription.items as object), data: [] }
  // The event's data.object is compared with the fixture of its own type (a sample too).
  if (kind === 'event') return { ...fixtures.event, data: { object: {} } }
  return fixtures[kind]
}

const types = loadStripeTypes()
let stack: Awaited<ReturnType<typeof setupStack>>
let samples: Sample[]

beforeAll(async () => {
  stack = await setupStack()
  samples = await collectSamples(stack.stripe, stack.emulator)
})
afterAll(async () => {
  await stack.teardown()
})

const kinds = Object.keys(STRIPE_TYPES) as ObjectKind[]

describe('the Stripe emulator against Stripe fixtures and stripe-node types', () => {
  it('serves every object type it emulates', () => {
    expect(new Set(samples.map((sample) => sample.kind))).toEqual(new Set(kinds))
  })

  it('prints its fixture coverage, 100 % for every type the app reads', () => {
    const rows = kinds.map((kind) => ({ kind, ...coverageOf(kind) }))
    const lines = rows.map(({ kind, matched, total, count }) =>
      [
        kind.padEnd(24),
        `${matched}/${total}`.padStart(9),
        `${((100 * matched) / total).toFixed(1)} %`.padStart(8),
        `${count} objects`.padStart(12),
        APP_READS.includes(kind) ? '  read by the app' : '',
      ].join(''),
    )
    const older = rows.flatMap((row) => row.notInPinnedVersion.map((path) => `${row.kind} ${path}`))
    console.log(
      [
        'Stripe fixture coverage (fields matched / fields in the fixture, worst object of each type):',
        ...lines,
        `Fixture fields that API version ${API_VERSION} no longer has (not counted): ${older.join(', ') || 'none'}`,
      ].join('\n'),
    )
    const gaps = rows.filter((row) => APP_READS.includes(row.kind) && row.matched < row.total)
    expect(gaps.map((row) => [row.kind, row.mismatches])).toEqual([])
  })

  it('has every fixture field of the other types too', () => {
    const gaps = kinds
      .map((kind) => [kind, coverageOf(kind).mismatches] as const)
      .filter(([, mismatches]) => mismatches.length > 0)
    expect(gaps).toEqual([])
  })

  it.each(kinds)('%s objects conform to the pinned API version (stripe-node types)', (kind) => {
    const problems = samplesOf(kind).flatMap((sample) =>
      validate(types, sample.value, types.of(kind), WIRE_OPTIONS)
        .filter((problem) => !sentThoughUndeclared(sample, problem))
        .map((problem) => ({
          source: sample.source,
          message: `${problem.path} ${problem.message}`,
        })),
    )
    expect(grouped(problems)).toEqual([])
  })
})

const samplesOf = (kind: ObjectKind) => samples.filter((sample) => sample.kind === kind)

/** The worst object of a kind, with the mismatches found in any of them. */
function coverageOf(kind: ObjectKind) {
  const results = samplesOf(kind).map((sample) => ({
    source: sample.source,
    ...compareWithFixture(types, fixtureOf(kind), sample.value, types.of(kind)),
  }))
  const worst = results.reduce((a, b) => (b.matched / b.total < a.matched / a.total ? b : a))
  const mismatches = results.flatMap(({ source, mismatches }) =>
    mismatches.map((message) => ({ source, message })),
  )
  return { ...worst, mismatches: grouped(mismatches), count: results.length }
}

/** One line per distinct problem, naming how many objects have it and one of them. */
function grouped(problems: { source: string; message: string }[]) {
  const byMessage = new Map<string, string[]>()
  for (const { source, message } of problems) {
    byMessage.set(message, [...(byMessage.get(message) ?? []), source])
  }
  return [...byMessage].map(
    ([message, sources]) => `${message} (${sources.length} objects, e.g. ${sources[0]})`,
  )
}
