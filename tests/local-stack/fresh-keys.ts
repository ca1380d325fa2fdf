/** Keys made for one run (the deploy rehearsal: a production build refuses the published ones). */
import { randomBytes, randomUUID } from 'node:crypto'

import { SignJWT } from 'jose'

import { LOCAL_JWT_SECRET } from './supabase/keys'

export interface StackKeys {
  supabaseAnonKey: string
  supabaseServiceRoleKey: string
  supabasePublishableKey: string
  supabaseSecretKey: string
  stripeSecretKey: string
  stripeWebhookSecret: string
  polarAccessToken: string
  polarWebhookSecret: string
}

const token = (bytes = 24) => randomBytes(bytes).toString('base64url')

/** A legacy Supabase API key: an HS256 JWT of `role`, as a project's anon/service_role keys. */
function supabaseKey(role: 'anon' | 'service_role', ref: string) {
  return new SignJWT({ iss: 'supabase', ref, role })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime('1y')
    .sign(new TextEncoder().encode(LOCAL_JWT_SECRET))
}

export async function freshStackKeys(): Promise<StackKeys> {
  const ref = randomUUID().replace(/-/g, '').slice(0, 20)
  return {
    supabaseAnonKey: await supabaseKey('anon', ref),
    supabaseServiceRoleKey: await supabaseKey('service_role', ref),
    supabasePublishableKey: `sb_publishable_${token(22)}`,
    supabaseSecretKey: `sb_secret_${token(22)}`,
    stripeSecretKey: `sk_test_${token()}`,
    stripeWebhookSecret: `whsec_${token(32)}`,
    polarAccessToken: `polar_oat_${token()}`,
    polarWebhookSecret: `polar_whs_${token(32)}`,
  }
}
