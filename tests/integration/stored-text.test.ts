import { beforeAll, expect, test } from 'vitest'

import { VALID_CONTACT } from '../../app/contact/test-support'
import { setRateLimitStore } from '../../app/lib/server/rate-limit.server'
import { createSignedInUser, testAppForFile } from './harness'

// PostgreSQL stores neither a NUL nor a lone UTF-16 surrogate: each is its form's or API's 400.
const app = testAppForFile()
let cookie: string
beforeAll(async () => {
  cookie = (await createSignedInUser(app)).cookie
})

const UNSTORABLE = {
  NUL: 'A\u0000b',
  'a lone high surrogate': 'A\ud800b',
  'a lone low surrogate': 'A\udc00b',
}

const contactFields = Object.keys(VALID_CONTACT) as (keyof typeof VALID_CONTACT)[]
/** Each stored field, where it is posted, and the rest of a post that passes every other rule. */
const FIELDS = [
  ...contactFields.map((field) => ({
    path: '/api/contact',
    field,
    json: true,
    rest: VALID_CONTACT,
  })),
  ...contactFields.map((field) => ({ path: '/contact', field, json: false, rest: VALID_CONTACT })),
  {
    path: '/dashboard/settings/general',
    field: 'displayName',
    json: false,
    rest: { intent: 'display-name' },
  },
]

const cases = FIELDS.flatMap((target) =>
  Object.entries(UNSTORABLE).map(([what, value]) => ({ ...target, what, value })),
)

test.each(cases)(
  '$path $field with $what: its 400, never a 500',
  async ({ path, field, json, rest, what, value }) => {
    // Each post its own budget: the contact form allows a client five messages.
    setRateLimitStore(undefined)
    const fields = { ...rest, [field]: `${value}${'x'.repeat(12)}` }
    const body = json ? JSON.stringify(fields) : new URLSearchParams(fields).toString()
    const response = await fetch(`${app.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'Content-Type': json ? 'application/json' : 'application/x-www-form-urlencoded',
        Cookie: cookie,
      },
      body,
    })
    if (json || what === 'NUL') expect(response.status).toBe(400)
    // A form's UTF-8 cannot carry a lone surrogate: it arrives as U+FFFD, a character like any.
    else expect([200, 400]).toContain(response.status)
    if (json)
      expect((await response.json()).errors).toContainEqual(
        expect.objectContaining({
          path: [field],
          message: 'This text has a character we cannot store',
        }),
      )
  },
)
