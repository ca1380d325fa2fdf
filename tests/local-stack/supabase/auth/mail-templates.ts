import { readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'

import { PROJECT_ROOT } from '../../database'
import { AuthError } from './errors'
import {
  type CompiledTemplate,
  compileTemplate,
  TemplateExecError,
  TemplateSyntaxError,
} from './go-template'

/**
 * The auth mails as the auth server renders them (supabase/auth internal/mailer/templatemailer):
 * each kind's subject and body are Go html/template templates, the project's own from
 * supabase/config.toml (`[auth.email.template.<name>]` subject and content_path), else the
 * server's defaults. A body that does not parse is replaced by the default (the server logs
 * it and carries on); a template that fails while rendering fails the request that sends it
 * (500 "Error sending … email"), as the service does.
 */

export const TEMPLATE_NAMES = [
  'confirmation',
  'invite',
  'magic_link',
  'recovery',
  'email_change',
  'reauthentication',
] as const
export type TemplateName = (typeof TEMPLATE_NAMES)[number]

/** A template given directly (tests): subject and/or body source. */
export interface TemplateOverride {
  subject?: string
  content?: string
}

interface LoadedTemplate {
  subject: CompiledTemplate
  body: CompiledTemplate
  /** Where the body came from: the project's file, an override, or the server's default. */
  origin: 'project' | 'override' | 'default'
}

export type MailTemplates = Record<TemplateName, LoadedTemplate>

/** The server's own subjects and bodies (templatemailer defaults), used when none is set. */
const DEFAULTS: Record<TemplateName, { subject: string; body: string }> = {
  invite: {
    subject: "You've been invited",
    body: `<h2>You've been invited</h2>\n<p><a href="{{ .ConfirmationURL }}">Accept invitation</a></p>`,
  },
  confirmation: {
    subject: 'Confirm your email address',
    body: `<h2>Confirm your email address</h2>\n<p><a href="{{ .ConfirmationURL }}">Confirm email address</a></p>`,
  },
  recovery: {
    subject: 'Reset your password',
    body: `<h2>Reset your password</h2>\n<p><a href="{{ .ConfirmationURL }}">Reset password</a></p>`,
  },
  magic_link: {
    subject: 'Your sign-in link',
    body: `<h2>Your sign-in link</h2>\n<p><a href="{{ .ConfirmationURL }}">Sign in</a></p>`,
  },
  email_change: {
    subject: 'Confirm your new email address',
    body: `<h2>Confirm your new email address</h2>\n<p>Confirm {{ .NewEmail }} as your new email address.</p>\n<p><a href="{{ .ConfirmationURL }}">Confirm new email address</a></p>`,
  },
  reauthentication: {
    subject: '{{ .Token }} is your verification code',
    body: `<h2>Your verification code</h2>\n<p>{{ .Token }}</p>`,
  },
}

/** What the service answers when a mail of a kind cannot be sent (internal/api/mail.go). */
const SEND_ERROR: Record<TemplateName, string> = {
  confirmation: 'Error sending confirmation email',
  invite: 'Error sending invite email',
  magic_link: 'Error sending magic link email',
  recovery: 'Error sending recovery email',
  email_change: 'Error sending email change email',
  reauthentication: 'Error sending reauthentication email',
}

interface ConfigToml {
  auth?: { email?: { template?: Record<string, { subject?: string; content_path?: string }> } }
}

function compileBody(name: TemplateName, source: string, file: string) {
  try {
    return compileTemplate(source)
  } catch (error) {
    if (!(error instanceof TemplateSyntaxError)) throw error
    console.warn(
      `local Supabase: the ${name} mail template (${file}) does not parse (${error.message}); the auth server would send its default, and so does the stand-in`,
    )
    return null
  }
}

/**
 * Loads the templates: supabase/config.toml of the project (or `configPath`), with
 * `overrides` taking the place of a kind's subject or body.
 */
export function loadMailTemplates(
  options: {
    configPath?: string
    overrides?: Partial<Record<TemplateName, TemplateOverride>>
  } = {},
): MailTemplates {
  const configPath = options.configPath ?? path.join(PROJECT_ROOT, 'supabase/config.toml')
  const root = path.dirname(path.dirname(configPath))
  const config = parse(readFileSync(configPath, 'utf8')) as ConfigToml
  const configured = config.auth?.email?.template ?? {}
  const templates = {} as MailTemplates
  for (const name of TEMPLATE_NAMES) {
    const entry = configured[name] ?? {}
    const override = options.overrides?.[name] ?? {}
    const subjectSource = override.subject ?? entry.subject ?? DEFAULTS[name].subject
    let body: CompiledTemplate | null = null
    let origin: LoadedTemplate['origin'] = 'default'
    if (override.content !== undefined) {
      body = compileBody(name, override.content, 'override')
      origin = 'override'
    } else if (entry.content_path) {
      const file = path.resolve(root, entry.content_path)
      body = compileBody(name, readFileSync(file, 'utf8'), file)
      origin = 'project'
    }
    if (!body) origin = 'default'
    templates[name] = {
      subject:
        compileBody(name, subjectSource, 'subject') ?? compileTemplate(DEFAULTS[name].subject),
      body: body ?? compileTemplate(DEFAULTS[name].body),
      origin,
    }
  }
  return templates
}

/** Renders one mail; a template that fails is the service's 500 for that kind of mail. */
export function renderMailTemplate(
  templates: MailTemplates,
  name: TemplateName,
  data: Record<string, unknown>,
) {
  try {
    return {
      subject: templates[name].subject.render(data),
      html: templates[name].body.render(data),
    }
  } catch (error) {
    if (error instanceof TemplateExecError) {
      console.warn(`local Supabase: the ${name} mail template failed: ${error.message}`)
      throw new AuthError(500, 'unexpected_failure', SEND_ERROR[name])
    }
    throw error
  }
}
