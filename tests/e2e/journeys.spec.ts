import { stripeFaults } from './billing-seed'
import {
  attachScreenshots,
  expect,
  fillSignIn,
  newUser,
  openMailedLink,
  payOnPolarCheckout,
  payOnStripeCheckout,
  PHONE,
  planCard,
  polarCheckoutUrl,
  signedInUser,
  signIn,
  signUp,
  stripeCheckoutUrl,
  test,
  uniqueEmail,
  untilWebhookApplied,
  waitForMail,
} from './fixtures'
import { E2E } from './ports'

/** A newcomer's whole way, the plan and way to pay chosen on pricing kept to its checkout. */

for (const { provider, way, words, javaScriptEnabled } of [
  { provider: 'stripe', way: 'Pay by card', words: 'paying by card', javaScriptEnabled: true },
  {
    provider: 'polar',
    way: 'Pay with Polar',
    words: 'paying with Polar',
    javaScriptEnabled: false,
  },
]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled, viewport: PHONE })

    test(`pricing → sign-up → confirmation mail → ${provider}'s checkout of the chosen plan`, async ({
      page,
    }, testInfo) => {
      test.setTimeout(90_000)
      const email = uniqueEmail(`journey-${provider}`)
      await page.goto('/pricing')
      const pro = planCard(page, 'Pro')
      await expect(pro.getByRole('link', { name: /^Get started with Pro: / })).toHaveCount(2)
      await expect(pro.getByRole('button')).toHaveCount(0)
      await attachScreenshots(page, testInfo, 'pricing, signed out')
      await pro.getByRole('link', { name: `Get started with Pro: ${way}` }).click() // 1

      await expect(page).toHaveURL(
        new RegExp(`/sign-up\\?redirectTo=%2Fsubscribe%2Fpro%3Fprovider%3D${provider}$`),
      )
      await expect(page.getByRole('main')).toContainText(
        `You're signing up for Pro, $29.00/month, ${words}.`,
      )
      await signUp(page, email) // 2
      await openMailedLink(page, (await waitForMail(email, 'signup')).link!) // 3: the mail's link

      await expect(page).toHaveURL(provider === 'stripe' ? stripeCheckoutUrl : polarCheckoutUrl)
      await expect(page.getByLabel('Email')).toHaveValue(email)
      if (provider === 'stripe') {
        await expect(page.getByRole('heading', { name: 'Subscribe to Pro' })).toBeVisible()
        await payOnStripeCheckout(page) // 4
      } else await payOnPolarCheckout(page)
      await expect(
        page.getByRole('heading', { level: 1, name: 'Payment successful' }),
      ).toBeVisible()
      await expect(page.getByText('Pro plan: $29.00 per month')).toBeVisible()
      await expect(page.getByText(`Your receipt is on its way to ${email}`)).toBeVisible()
      await attachScreenshots(page, testInfo, 'success page')

      // The way on was followed once: the dashboard is the dashboard again.
      await untilWebhookApplied(page, '/dashboard', (soon) =>
        soon(page.getByRole('region', { name: 'Your plan' })).toContainText('Pro'),
      )
      await expect(page).toHaveURL(`${E2E.siteUrl}/dashboard`)
      await attachScreenshots(page, testInfo, 'dashboard after paying')

      await page.goto('/pricing')
      await expect(pro.getByText('Current plan')).toBeVisible()
      await expect(pro.getByRole('link', { name: 'Manage your plan' })).toBeVisible()
      await expect(
        planCard(page, 'Starter').getByRole('link', { name: 'Change to Starter' }),
      ).toBeVisible()
      await attachScreenshots(page, testInfo, 'pricing, subscriber')
    })
  })
}

test('an unknown plan and a provider failure bring a browser back to pricing with a message', async ({
  page,
}) => {
  await signedInUser(page, 'journey-errors')

  await page.goto('/subscribe/enterprise')
  await expect(page).toHaveURL(`${E2E.siteUrl}/pricing?notice=unknown-plan`)
  await expect(page.getByRole('alert')).toContainText('That plan does not exist')

  await stripeFaults({ path: '/v1/checkout/sessions', method: 'POST', status: 500, count: 3 })
  try {
    await page.goto('/subscribe/pro')
    await expect(page).toHaveURL(`${E2E.siteUrl}/pricing?notice=checkout-failed`)
    await expect(page.getByRole('alert')).toContainText('You have not been charged')
  } finally {
    await stripeFaults()
  }
})

test.describe('with JavaScript off', () => {
  test.use({ javaScriptEnabled: false })

  test('a Subscribe form after the session ended leads to sign-in and back, never to JSON', async ({
    page,
    context,
  }) => {
    const user = await newUser('journey-expired')
    await signIn(page, user.email)
    await page.goto('/pricing')
    await context.clearCookies() // the session ends while the page is open
    await page.getByRole('button', { name: 'Subscribe to Pro: Pay by card' }).click()
    await expect(page).toHaveURL(/\/sign-in\?redirectTo=%2Fpricing&notice=sign-in-to-continue$/)
    await expect(page.getByRole('status').first()).toContainText(
      'Sign in to continue where you left off.',
    )
    await expect(page.locator('body')).not.toContainText('"error"')
    await fillSignIn(page, user.email)
    await expect(page).toHaveURL(`${E2E.siteUrl}/pricing`)
  })
})
