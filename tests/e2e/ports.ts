/** The browser-test stack's loopback ports; E2E_PORT_OFFSET moves them all. */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0)
const appPort = 4173 + offset
// All below 32768, clear of the ports outgoing connections take (tools/ports.ts says why).
const supabasePort = 12141 + offset
const stripePort = 12121 + offset
const polarPort = 12131 + offset
// The SMTP listener (mails land in the Supabase emulator's inbox): clear of the others.
const smtpPort = 2525 + offset

export const E2E = {
  appPort,
  siteUrl: `http://localhost:${appPort}`,
  supabasePort,
  supabaseUrl: `http://localhost:${supabasePort}`,
  stripePort,
  stripeUrl: `http://localhost:${stripePort}`,
  polarPort,
  polarUrl: `http://localhost:${polarPort}`,
  smtpPort,
} as const
