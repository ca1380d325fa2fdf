import type { APIRequestContext } from '@playwright/test'

import { createUser, expect, test, uniqueEmail } from './fixtures'

/** Account or not, the same answers, twice a minute too (Supabase's minute is accounts' only). */

/** An answer with the address, the page's nonces and its request ids taken out. */
async function answer(request: APIRequestContext, path: string, form: Record<string, string>) {
  const response = await request.post(path, {
    form,
    maxRedirects: 0,
    headers: {
      'x-forwarded-for': `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    },
  })
  const normalise = (text: string) =>
    text
      .replaceAll(form.email, '<email>')
      .replaceAll(encodeURIComponent(form.email), '<email>')
      .replace(/nonce="[^"]*"/g, 'nonce')
  return {
    status: response.status(),
    location: normalise(response.headers().location ?? ''),
    body: normalise(await response.text()),
  }
}

const FORMS: { name: string; path: string; form: Record<string, string> }[] = [
  { name: 'forgot password', path: '/forgot-password', form: {} },
  { name: 'magic link', path: '/sign-in', form: { intent: 'magic-link' } },
]

for (const { name, path, form } of FORMS) {
  test(`${name}: twice within a minute, an account and no account get the same answers`, async ({
    request,
  }) => {
    const user = await createUser()
    const unknown = uniqueEmail('nobody')
    for (const round of [1, 2]) {
      const existing = await answer(request, path, { ...form, email: user.email })
      const fresh = await answer(request, path, { ...form, email: unknown })
      expect(existing, `request ${round}`).toEqual(fresh)
      expect(existing.status, `request ${round}`).toBeLessThan(400)
    }
  })
}
