import { renderToStaticMarkup } from 'react-dom/server'
import { expect, test } from 'vitest'

import type { PaymentView } from '~/subscriptions/billing-overview.server'

import { PaymentHistory } from './payment-history'

const payment = (invoice_url: string): PaymentView => ({
  id: 'p1',
  amount: 2900,
  amount_refunded: 0,
  currency: 'usd',
  created_at: '2026-11-01T00:00:00Z',
  description: 'Pro payment',
  dispute_status: null,
  invoice_url,
  provider: 'stripe',
  status: 'failed',
})

// A provider's invoice link is data: only an http(s) URL becomes an href (as in the mails).
test.each([
  'javascript:alert(1)',
  'JavaScript:alert(1)',
  '\u0001javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'https://invoice.example/i/1\njavascript:alert(1)',
])('%j is not linked', (url) => {
  const html = renderToStaticMarkup(<PaymentHistory payments={[payment(url)]} payable />)
  expect(html).not.toContain('href=')
  expect(html).toContain('Not available yet')
})

test('an https link is', () => {
  const html = renderToStaticMarkup(
    <PaymentHistory payments={[payment('https://invoice.stripe.com/i/x')]} payable />,
  )
  expect(html).toContain('href="https://invoice.stripe.com/i/x"')
})
