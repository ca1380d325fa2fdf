/** Contract: every object matches Stripe's published fixture and the pinned stripe-node type. */
import { readFileSync } from 'node:fs'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type Problem, validate } from '../sdk-types/validate'
import { compareWithFixture } from './contract/compare'
import { collectSamples, type Sample } from './contract/samples'
import { loadStripeTypes, type ObjectKind, STRIPE_TYPES, WIRE_OPTIONS } from './contract/types'
import { setupStack } from './test-support'

/** `total_count` of lists embedded in an object: Stripe sends it, stripe-node's types omit it. */
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

  it.each(kinds)(
    '%s objects have every fixture field and conform to the pinned API version',
    (kind) => {
      const problems = samples
        .filter((sample) => sample.kind === kind)
        .flatMap((sample) =>
          [
            ...compareWithFixture(types, fixtureOf(kind), sample.value, types.of(kind)).mismatches,
            ...validate(types, sample.value, types.of(kind), WIRE_OPTIONS)
              .filter((problem) => !sentThoughUndeclared(sample, problem))
              .map((problem) => `${problem.path} ${problem.message}`),
          ].map((message) => ({ source: sample.source, message })),
        )
      expect(grouped(problems)).toEqual([])
    },
  )
})

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
