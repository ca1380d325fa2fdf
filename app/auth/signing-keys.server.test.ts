import { describe, expect, it } from 'vitest'

import {
  type Jwks,
  SIGNING_KEYS_MAX_AGE_MS,
  SIGNING_KEYS_RETRY_MS,
  SigningKeys,
} from './signing-keys.server'

const first: Jwks = { keys: [{ kty: 'EC', key_ops: ['verify'], kid: 'one' }] }
const second: Jwks = { keys: [{ kty: 'EC', key_ops: ['verify'], kid: 'two' }] }

/** A SigningKeys whose fetches answer from a script, on a clock the test moves. */
function scripted(answers: (Jwks | Error)[]) {
  const clock = { now: 0 }
  let fetches = 0
  const keys = new SigningKeys(
    async () => {
      const answer = answers[Math.min(fetches++, answers.length - 1)]
      if (answer instanceof Error) throw answer
      return answer
    },
    () => clock.now,
  )
  return { keys, clock, fetches: () => fetches }
}

describe('SigningKeys', () => {
  it('fetches once, then uses the keys for their maximum age', async () => {
    const { keys, clock, fetches } = scripted([first, second])
    expect(await keys.current()).toEqual(first)
    clock.now += SIGNING_KEYS_MAX_AGE_MS - 1
    expect(await keys.current()).toEqual(first)
    expect(fetches()).toBe(1)
    clock.now += 1
    expect(await keys.current()).toEqual(second)
    expect(fetches()).toBe(2)
  })

  it('keeps the last keys while the auth server cannot be reached, asking again after a pause', async () => {
    const { keys, clock, fetches } = scripted([first, new Error('fetch failed'), second])
    await keys.current()
    clock.now += SIGNING_KEYS_MAX_AGE_MS
    expect(await keys.current()).toEqual(first)
    expect(fetches()).toBe(2)
    clock.now += SIGNING_KEYS_RETRY_MS - 1
    expect(await keys.current()).toEqual(first)
    expect(fetches()).toBe(2)
    clock.now += 1
    expect(await keys.current()).toEqual(second)
  })

  it('has nothing to offer before a first successful fetch (auth-js then asks itself)', async () => {
    const { keys } = scripted([new Error('fetch failed')])
    expect(await keys.current()).toBeUndefined()
  })

  it('refuses an answer that is not a key set, keeping what it had', async () => {
    const { keys, clock } = scripted([first, { nope: true } as unknown as Jwks])
    await keys.current()
    clock.now += SIGNING_KEYS_MAX_AGE_MS
    expect(await keys.current()).toEqual(first)
  })

  it('shares one fetch between concurrent callers', async () => {
    const { keys, fetches } = scripted([first])
    await Promise.all([keys.current(), keys.current(), keys.current()])
    expect(fetches()).toBe(1)
  })
})
