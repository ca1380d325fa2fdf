/** Fixed loopback ports of the browser-test stack (distinct from `npm run dev`). */
export const E2E = {
  appPort: 4173,
  siteUrl: 'http://localhost:4173',
  supabasePort: 54331,
  supabaseUrl: 'http://localhost:54331',
  stripePort: 12121,
  stripeUrl: 'http://localhost:12121',
  polarPort: 12122,
  polarUrl: 'http://localhost:12122',
} as const
