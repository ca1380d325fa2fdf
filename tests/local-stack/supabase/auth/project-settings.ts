import { readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'

import { PROJECT_ROOT } from '../../database'

/** The settings of `supabase/config.toml` that the emulated auth server follows by default. */
export interface ProjectAuthSettings {
  /** `[auth.email] secure_password_change` (GoTrue UpdatePasswordRequireReauthentication). */
  securePasswordChange: boolean
}

let settings: ProjectAuthSettings | undefined

/** Read once from the project's `supabase/config.toml`, as `supabase start` reads it. */
export function projectAuthSettings(): ProjectAuthSettings {
  if (settings) return settings
  const config = parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as {
    auth?: { email?: { secure_password_change?: unknown } }
  }
  // The CLI's default when the key is absent (supabase/cli pkg/config/templates/config.toml).
  settings = { securePasswordChange: config.auth?.email?.secure_password_change === true }
  return settings
}
