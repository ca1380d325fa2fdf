import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'
import { describe, expect, it } from 'vitest'

import { EMAIL_LINK_LIFETIME_SECONDS } from '../../app/auth/email-link-state.server'
import { PASSWORD_MIN_LENGTH } from '../../app/auth/limits'
import { nextFromLink } from '../../app/auth/safe-next-path'
import { SignUpSchema } from '../../app/auth/schemas'
import { LOCAL_DEFAULTS } from '../../app/env.server'
import { PROJECT_ROOT } from '../local-stack/database'
import { loadMailTemplates, renderMailTemplate } from '../local-stack/supabase/auth/mail-templates'
import { isRedirectAllowed } from '../local-stack/supabase/auth/redirects'
import { firstLink } from '../local-stack/supabase/mail'

// supabase/config.toml agrees with the app; the auth server checks the password after the form
// has answered, so a password it would refuse must already be refused by the form.
const config = parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as {
  auth: {
    password_requirements?: string
    additional_redirect_urls: string[]
    email: { template: Record<string, { subject: string; content_path: string }> }
  }
  storage: { buckets: Record<string, { allowed_mime_types: string[] }> }
}

const LINK_TEMPLATES: Record<string, string> = {
  confirmation: 'signup',
  magic_link: 'magiclink',
  recovery: 'recovery',
  email_change: 'email_change',
  invite: 'invite',
}

/** Where the app's auth calls ask the auth server to send the browser (auth.server.ts). */
const NEXT_PATHS = [
  '/dashboard',
  '/reset-password',
  '/dashboard/settings/account',
  '/subscribe/pro',
  '/dashboard/settings/billing?tab=invoices',
  '/files/report.v2.pdf',
]
const callbackUrl = (origin: string, next: string) =>
  `${origin}/auth/callback?${new URLSearchParams({ next })}`

describe('supabase/config.toml', () => {
  it('names the local app as the site, on the CLI port the local stack never takes, with the lifetime, bucket, GitHub secrets and password rules the app assumes', () => {
    expect(config).toMatchObject({
      auth: {
        site_url: LOCAL_DEFAULTS.SITE_URL,
        minimum_password_length: PASSWORD_MIN_LENGTH,
        email: { enable_confirmations: true, otp_expiry: EMAIL_LINK_LIFETIME_SECONDS },
        external: {
          github: {
            enabled: true,
            client_id: 'env(SUPABASE_AUTH_EXTERNAL_GITHUB_CLIENT_ID)',
            secret: 'env(SUPABASE_AUTH_EXTERNAL_GITHUB_SECRET)',
          },
        },
      },
      api: { port: 54321 },
      storage: { buckets: { 'profile-images': { public: true, file_size_limit: '2MiB' } } },
    })
    expect(new URL(LOCAL_DEFAULTS.SUPABASE_URL).port).not.toBe('54321')
    // No character classes the form does not ask for.
    expect(config.auth.password_requirements ?? '').toBe('')
  })

  it('allows every redirect the app makes, also when the Site URL is another origin', () => {
    // A hosted project developed against: its Site URL is the deployment, the app is local.
    const hosted = {
      siteUrl: 'https://subscribely.example',
      redirectAllowList: config.auth.additional_redirect_urls,
    }
    for (const origin of [LOCAL_DEFAULTS.SITE_URL, 'http://localhost:3000']) {
      for (const next of NEXT_PATHS) {
        expect(isRedirectAllowed(hosted, callbackUrl(origin, next)), `${origin} ${next}`).toBe(true)
      }
    }
    expect(isRedirectAllowed(hosted, 'https://evil.example/auth/callback?next=%2F')).toBe(false)
    // the glob is matched against the whole URL: an exact callback entry matches no redirect
    const exact = { ...hosted, redirectAllowList: [`${LOCAL_DEFAULTS.SITE_URL}/auth/callback`] }
    expect(isRedirectAllowed(exact, callbackUrl(LOCAL_DEFAULTS.SITE_URL, '/dashboard'))).toBe(false)
  })

  const templates = loadMailTemplates()
  const site = LOCAL_DEFAULTS.SITE_URL
  const data = (redirectTo: string) => ({
    SiteURL: site,
    ConfirmationURL: 'http://localhost:54421/auth/v1/verify?token=x&type=signup&redirect_to=x',
    Email: 'ada+pro@example.com',
    NewEmail: 'ada.new@example.com',
    SendingTo: 'ada+pro@example.com',
    Token: '123456',
    TokenHash: 'pkce_0123abcd',
    RedirectTo: redirectTo,
  })

  it.each(Object.keys(LINK_TEMPLATES).concat('reauthentication'))(
    "the %s template is the project's own, self-contained, with its subject",
    (name) => {
      const entry = config.auth.email.template[name]
      expect(entry?.subject).toBeTruthy()
      expect(existsSync(path.join(PROJECT_ROOT, entry.content_path))).toBe(true)
      const mail = renderMailTemplate(templates, name as keyof typeof templates, data(site))
      expect(mail.subject).toBe(name === 'magic_link' ? 'Your sign-in link' : entry.subject)
      expect(mail.html).toMatch(/^<!doctype html>/)
      expect(mail.html).toContain('Subscribely')
      // nothing fetched from elsewhere: no stylesheet, image or script
      expect(mail.html).not.toMatch(/<(link|img|script|style)\b/i)
    },
  )

  it.each(Object.entries(LINK_TEMPLATES))(
    "the %s link works with the app's redirect and with the bare Site URL (type %s)",
    (name, type) => {
      const html = readFileSync(
        path.join(PROJECT_ROOT, config.auth.email.template[name].content_path),
        'utf8',
      )
      expect(html).not.toContain('{{ .ConfirmationURL }}')
      for (const [redirectTo, next] of [
        [callbackUrl(site, '/dashboard/settings/account'), '/dashboard/settings/account'],
        [site, '/dashboard'],
      ]) {
        const mail = renderMailTemplate(templates, name as keyof typeof templates, data(redirectTo))
        const link = new URL(firstLink(mail.html)!)
        expect(`${link.origin}${link.pathname}`).toBe(`${site}/auth/callback`)
        expect(link.searchParams.get('token_hash')).toBe('pkce_0123abcd')
        expect(link.searchParams.get('type')).toBe(type)
        expect(nextFromLink(link.searchParams.get('next'), site)).toBe(next)
      }
    },
  )

  it('every code a mail offers names where to type it', () => {
    for (const [name, where] of [
      ['confirmation', '“Check your email” page'],
      ['magic_link', '“Check your email” page'],
      ['reauthentication', 'Account settings'],
    ] as const) {
      const { html } = renderMailTemplate(templates, name, data(site))
      expect(html).toContain('123456')
      expect(html).toContain(where)
    }
    for (const name of ['recovery', 'email_change', 'invite'] as const) {
      expect(renderMailTemplate(templates, name, data(site)).html).not.toContain('123456')
    }
  })

  it("the sign-in mail is the owner's code, naming its action, while user_metadata's code_for says so", () => {
    for (const [codeFor, subject, action] of [
      ['delete-account', 'Your code to delete your account', 'delete the Subscribely account'],
      ['change-email', 'Your code to change your sign-in email', 'change the sign-in email'],
    ]) {
      const mail = renderMailTemplate(templates, 'magic_link', {
        ...data(site),
        Data: { code_for: codeFor },
      })
      expect(mail.subject).toBe(subject)
      expect(mail.html).toContain(`Your code to ${action}`)
      expect(mail.html).toContain('123456')
      expect(mail.html).toContain('Account settings')
      expect(mail.html).not.toMatch(/sign in to|<a /i)
    }
  })

  it('the email change mail names both addresses and its recipient', () => {
    const { html } = renderMailTemplate(templates, 'email_change', data(site))
    expect(html).toContain('ada&#43;pro@example.com')
    expect(html).toContain('ada.new@example.com')
  })

  it('declares the profile-images bucket as the migration creates it', () => {
    const migration = readFileSync(
      path.join(PROJECT_ROOT, 'supabase/migrations/20261206110000_profiles.sql'),
      'utf8',
    )
    const bucket = config.storage.buckets['profile-images']
    expect(migration).toContain("'profile-images', 'profile-images', true, 2097152")
    for (const type of bucket.allowed_mime_types) expect(migration).toContain(`'${type}'`)
  })

  it('the sign-up form refuses a password one character short of the minimum', () => {
    const form = (password: string) =>
      SignUpSchema.safeParse({ email: 'ada@example.com', password }).success
    expect(form('x'.repeat(PASSWORD_MIN_LENGTH - 1))).toBe(false)
    expect(form('x'.repeat(PASSWORD_MIN_LENGTH))).toBe(true)
  })
})
