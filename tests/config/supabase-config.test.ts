import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { parse } from 'smol-toml'
import { describe, expect, it } from 'vitest'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PROJECT_ROOT } from '../local-stack/database'

/**
 * supabase/config.toml agrees with the app: the site URL and callback, mail templates that
 * link to the callback with a token hash of the right type, the avatar bucket as the
 * migration creates it, and GitHub's secrets read from the environment.
 */
const config = parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as {
  auth: {
    site_url: string
    additional_redirect_urls: string[]
    email: {
      enable_confirmations: boolean
      template: Record<string, { subject: string; content_path: string }>
    }
    external: { github: { enabled: boolean; client_id: string; secret: string } }
  }
  api: { port: number }
  storage: {
    buckets: Record<
      string,
      { public: boolean; file_size_limit: string; allowed_mime_types: string[] }
    >
  }
}

const TEMPLATE_TYPES: Record<string, string> = {
  confirmation: 'signup',
  magic_link: 'magiclink',
  recovery: 'recovery',
  email_change: 'email_change',
  invite: 'invite',
}

describe('supabase/config.toml', () => {
  it('names the local app as the site and allows its callback', () => {
    expect(config.auth.site_url).toBe(LOCAL_DEFAULTS.SITE_URL)
    expect(config.auth.additional_redirect_urls).toContain(
      `${LOCAL_DEFAULTS.SITE_URL}/auth/callback`,
    )
    expect(config.auth.email.enable_confirmations).toBe(true)
  })

  it('uses the Supabase CLI ports, which the local stack never takes', () => {
    expect(config.api.port).toBe(54321)
    expect(new URL(LOCAL_DEFAULTS.SUPABASE_URL).port).not.toBe('54321')
  })

  it.each(Object.entries(TEMPLATE_TYPES))(
    'the %s template links to the callback with a token hash of type %s',
    (name, type) => {
      const template = config.auth.email.template[name]
      expect(template?.subject).toBeTruthy()
      const file = path.join(PROJECT_ROOT, template.content_path)
      expect(existsSync(file)).toBe(true)
      const html = readFileSync(file, 'utf8')
      expect(html).toContain(
        `href="{{ .RedirectTo }}&amp;token_hash={{ .TokenHash }}&amp;type=${type}"`,
      )
      expect(html).not.toContain('{{ .ConfirmationURL }}')
    },
  )

  it('declares the profile-images bucket as the migration creates it', () => {
    const migration = readFileSync(
      path.join(PROJECT_ROOT, 'supabase/migrations/20261122000100_initial_schema.sql'),
      'utf8',
    )
    const bucket = config.storage.buckets['profile-images']
    expect(bucket.public).toBe(true)
    expect(bucket.file_size_limit).toBe('2MiB')
    expect(migration).toContain("'profile-images', 'profile-images', true, 2097152")
    for (const type of bucket.allowed_mime_types) expect(migration).toContain(`'${type}'`)
  })

  it('reads the GitHub provider secrets from the environment', () => {
    expect(config.auth.external.github).toMatchObject({
      enabled: true,
      client_id: 'env(SUPABASE_AUTH_EXTERNAL_GITHUB_CLIENT_ID)',
      secret: 'env(SUPABASE_AUTH_EXTERNAL_GITHUB_SECRET)',
    })
  })
})
