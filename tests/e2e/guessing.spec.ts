import { attachScreenshots, createUser, expect, fillSignIn, test, waitForMail } from './fixtures'

/**
 * An account guessed at from many clients: once its ceiling is reached, even the right
 * password is refused, the page offers the emailed link instead, and the owner gets in with
 * it, without JavaScript, at desktop and phone width.
 */
test.use({ javaScriptEnabled: false })

test('password sign-in paused by strangers’ guesses: the owner signs in by the emailed link', async ({
  page,
  request,
}, testInfo) => {
  const user = await createUser()
  // Strangers at two other addresses try wrong passwords (the form's plain post).
  for (const stranger of ['10.199.1.1', '10.199.1.2']) {
    for (let i = 0; i < 10; i++) {
      const answer = await request.post('/sign-in', {
        form: { intent: 'password', email: user.email, password: `wrong-${i}` },
        headers: { 'x-forwarded-for': stranger },
        maxRedirects: 0,
      })
      expect(answer.status()).toBe(400)
    }
  }

  // The owner, from their own address, with the right password.
  await page.goto('/sign-in')
  await fillSignIn(page, user.email)
  await expect(page.getByText(/password sign-in is paused for \d+ minutes?/)).toBeVisible()
  expect(page.url()).toMatch(/\/sign-in/)
  await attachScreenshots(page, testInfo, 'sign-in paused')
  // The emailed link is the one primary button while password sign-in is paused.
  await expect(
    page.locator('form#sign-in').getByRole('button', { name: 'Sign in' }),
  ).not.toHaveClass(/bg-brand-600/)

  await page.getByRole('button', { name: 'Email me a sign-in link', exact: true }).click()
  await expect(page).toHaveURL(/\/sign-in\/confirm\?/)
  const mail = await waitForMail(user.email, 'magiclink')
  await page.goto(mail.link!)
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByText(`Signed in as ${user.email}.`)).toBeVisible()
})
