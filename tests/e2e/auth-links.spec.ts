import {
  adminClient,
  askForSignInLink,
  createUser,
  expect,
  PHONE,
  test,
  waitForMail,
} from './fixtures'

/** Emailed links and codes on a phone, JavaScript on and off. */

const masked = (email: string) => `${email[0]}•••${email.split('@')[0].slice(-1)}@example.com`

const MOBILE = { viewport: PHONE, isMobile: true, hasTouch: true }

for (const javaScriptEnabled of [true, false]) {
  test.describe(`phone, JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ ...MOBILE, javaScriptEnabled })

    test('an address with an account signs up again and confirms with the code it was mailed', async ({
      page,
    }) => {
      const user = await createUser()
      await page.goto('/sign-up')
      await page.getByRole('textbox', { name: 'Email' }).fill(user.email)
      await page.getByLabel('Password', { exact: true }).fill('another-passphrase-1')
      await page.getByRole('button', { name: 'Create account' }).click()
      await expect(page).toHaveURL(/\/sign-up\/confirm\?/)
      await expect(page.getByText('Open its link, or type the 6-digit code')).toBeVisible()
      // the mail is the sign-in link an existing account gets, with its own code
      const mail = await waitForMail(user.email, 'magiclink')
      await page.getByRole('textbox', { name: 'Code from the email' }).fill(mail.otp!)
      await page.getByRole('button', { name: 'Confirm with the code' }).click()
      await expect(page).toHaveURL(/\/dashboard(\?|$)/)
      await expect(page.getByText(`Signed in as ${user.email}.`)).toBeVisible()
    })

    test('the confirmation page names the account and what the link does before its button', async ({
      page,
    }) => {
      const user = await createUser()
      const { data, error } = await adminClient().auth.admin.generateLink({
        type: 'magiclink',
        email: user.email,
      })
      expect(error).toBeNull()
      const query = new URLSearchParams({
        token_hash: data.properties!.hashed_token,
        type: 'magiclink',
        next: '/dashboard/settings/account',
      })
      // a browser that did not ask for the link is asked first
      await page.goto(`/auth/callback?${query}`)
      await expect(page).toHaveURL(/\/auth\/confirm\?/)
      await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible()
      const main = page.getByRole('main')
      await expect(main).toContainText(
        `This link signs this browser in to the Subscribely account ${masked(user.email)}.`,
      )
      await expect(main).not.toContainText(user.email)
      await expect(main).toContainText('Did not ask for it? Close this page')
      // Nothing happened yet: this browser is not signed in.
      const cookies = await page.context().cookies()
      expect(cookies.some((cookie) => cookie.name.includes('auth-token'))).toBe(false)
      await main.getByRole('button', { name: 'Sign in' }).click()
      await expect(page).toHaveURL(/\/dashboard\/settings\/account$/)
    })
  })
}

test('asking for a sign-in link: the code from its mail signs in on the check-email page', async ({
  page,
}) => {
  const user = await createUser()
  await askForSignInLink(page, user.email)
  const mail = await waitForMail(user.email, 'magiclink')
  await page.getByRole('textbox', { name: 'Code from the email' }).fill(mail.otp!)
  await page.getByRole('button', { name: 'Sign in with the code' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.getByText(`Signed in as ${user.email}.`)).toBeVisible()
})
