import { expect, signedInUser, test } from './fixtures'

/** Site-wide pieces that depend on who is looking: the header and the footer. */

test('a visitor is offered an account; a signed-in user gets one "Sign out" and no sign-up', async ({
  page,
}) => {
  await page.goto('/')
  const footer = page.getByRole('navigation', { name: 'Footer' })
  await expect(footer.getByRole('link', { name: 'Create an account' })).toBeVisible()

  await signedInUser(page, 'layout')
  await page.goto('/dashboard/settings/billing')
  await expect(page.getByRole('button', { name: 'Sign out' })).toHaveCount(1)
  await expect(footer.getByRole('link', { name: 'Create an account' })).toHaveCount(0)
  await expect(footer.getByRole('link', { name: 'Pricing' })).toBeVisible()
})
