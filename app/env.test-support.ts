/**
 * A production configuration as a deployment would set it (real-looking keys, plan ids and
 * hosts, none of the local stack's): for the tests of configuration and headers.
 */
export const PRODUCTION_ENV = {
  NODE_ENV: 'production',
  SITE_URL: 'https://app.example.com',
  SUPABASE_URL: 'https://abcd.supabase.co',
  SUPABASE_ANON_KEY: 'eyJhbGciOiJIUzI1NiJ9.real-anon-key-value',
  SUPABASE_SERVICE_ROLE_KEY: 'eyJhbGciOiJIUzI1NiJ9.real-service-key-value',
  STRIPE_SECRET_KEY: 'sk_live_abc123',
  STRIPE_WEBHOOK_SECRET: 'whsec_real',
  POLAR_ACCESS_TOKEN: 'polar_oat_real_token',
  POLAR_WEBHOOK_SECRET: 'polar_whs_real_secret',
  POLAR_SANDBOX: 'false',
  STRIPE_PRICE_STARTER: 'price_1QStarterReal',
  STRIPE_PRICE_PRO: 'price_1QProReal',
  POLAR_PRODUCT_STARTER: '0f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b',
  POLAR_PRODUCT_PRO: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
  SMTP_URL: 'smtps://apikey:secret@smtp.example.net:465',
  MAIL_FROM: 'Subscribely <no-reply@app.example.com>',
  CONTACT_TO: 'Support <support@app.example.com>',
}
