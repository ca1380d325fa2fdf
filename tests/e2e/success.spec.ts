import { stripeFaults } from './billing-seed'
import { expect, test } from './fixtures'

/** The success page when the provider cannot be asked: confirming, never "not charged". */

test.afterEach(() => stripeFaults())

for (const javaScriptEnabled of [true, false]) {
  test.describe(`with JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled })

    test('a failed lookup shows "Confirming your payment" and rechecks on its own', async ({
      page,
    }) => {
      // Stripe retries twice, so three failures make one failed lookup.
      await stripeFaults({
        path: '/v1/checkout/sessions/cs_test_unknown_e2e',
        status: 503,
        count: 3,
      })
      await page.goto('/success?session_id=cs_test_unknown_e2e')
      await expect(
        page.getByRole('heading', { level: 1, name: 'Confirming your payment' }),
      ).toBeVisible()
      await expect(page.getByText('You have not been charged')).toHaveCount(0)
      await expect(page.getByRole('status')).toContainText('checks again every 5 seconds')

      // Only once Stripe says it does not know this checkout: nothing was charged.
      await expect(
        page.getByRole('heading', { level: 1, name: "We couldn't find that checkout" }),
      ).toBeVisible({ timeout: 15_000 })
      await expect(page).toHaveURL(/attempt=1/)
      await expect(page.getByText('nothing was charged through it')).toBeVisible()
    })
  })
}
