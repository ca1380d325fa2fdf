import {
  axeFindings,
  expect,
  planCard,
  signedInUser,
  subscribe,
  test,
  untilWebhookApplied,
} from './fixtures'

/** A Polar subscriber changes plan in the app, seeing the cost first. */

const RUNS = [
  { name: 'phone', width: 390, height: 844, javaScriptEnabled: false },
  // With JavaScript the form is submitted by Remix; axe scans the page (it needs scripts).
  { name: 'desktop', width: 1280, height: 800, javaScriptEnabled: true },
] as const

for (const viewport of RUNS) {
  test.describe(`${viewport.name}, JavaScript ${viewport.javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({
      javaScriptEnabled: viewport.javaScriptEnabled,
      viewport: { width: viewport.width, height: viewport.height },
    })

    test('a Polar subscriber changes from Pro to Starter, seeing the cost first', async ({
      page,
    }) => {
      test.setTimeout(120_000)
      await signedInUser(page, `polar-plan-${viewport.name}`)
      await subscribe(page, 'polar')

      const starter = planCard(page, 'Starter')
      await untilWebhookApplied(page, '/pricing', (soon) =>
        soon(starter.getByRole('link', { name: 'Change to Starter' })).toBeVisible(),
      )
      await starter.getByRole('link', { name: 'Change to Starter' }).click()

      await expect(page).toHaveURL(/\/dashboard\/settings\/billing\/change-plan\?plan=starter$/)
      await expect(page.getByRole('heading', { level: 1, name: 'Change to Starter' })).toBeVisible()
      await expect(
        page.getByText('You are on Pro ($29.00 per month). Starter is $9.00 per month.'),
      ).toBeVisible()
      const cost = page.getByRole('region', { name: 'What it will cost' })
      // Like an invoice: its lines top to bottom adding up to the next invoice, "Due today" on its own.
      const lines = cost.getByRole('term')
      await expect(lines).toHaveText([
        'Credit for the unused part of Pro',
        'Starter for the rest of this period',
        /^Starter from [A-Z][a-z]+ \d{1,2}, \d{4}$/,
        'Credit kept for the invoices after that',
        /^Next invoice on [A-Z][a-z]+ \d{1,2}, \d{4}:$/,
      ])
      await expect(cost.getByRole('definition')).toHaveText([
        '−$29.00',
        '$9.00',
        '$9.00',
        '$11.00',
        '$0.00',
      ])
      const tops = await lines.evaluateAll((terms) =>
        terms.map((term) => term.getBoundingClientRect().top),
      )
      expect(tops).toEqual([...tops].sort((a, b) => a - b))
      expect(new Set(tops).size).toBe(5)
      const dueToday = cost.getByText('Due today: $0.00', { exact: true })
      await expect(dueToday).toBeVisible()
      expect((await dueToday.boundingBox())!.y).toBeGreaterThan(tops[4])
      await expect(page.getByRole('link', { name: 'Keep Pro' })).toBeVisible()
      if (viewport.javaScriptEnabled) expect(await axeFindings(page)).toEqual([])

      await page.getByRole('button', { name: 'Confirm change to Starter' }).click()
      await expect(page).toHaveURL(/\/dashboard\/settings\/billing\?changed=starter$/)
      await expect(page.getByText('Your plan is now Starter.', { exact: false })).toBeVisible()
      const subscription = page.getByRole('region', { name: 'Current subscription' })
      await expect(subscription).toContainText('Starter')
      await expect(subscription).toContainText('Active')
      await expect(subscription.getByRole('link', { name: 'Change to Pro' })).toBeVisible()
    })
  })
}
