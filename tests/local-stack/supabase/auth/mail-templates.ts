import { readFileSync } from 'node:fs'
import path from 'node:path'

import { parse } from 'smol-toml'

import { PROJECT_ROOT } from '../../database'
import {
  type CompiledTemplate,
  compileTemplate,
  type MailData,
  UnsupportedTemplateError,
} from './go-template'

/** The project's own mail templates (config.toml), refused at start when missing (README.md). */

export const TEMPLATE_NAMES = [
  'confirmation',
  'invite',
  'magic_link',
  'recovery',
  'email_change',
  'reauthentication',
] as const
export type TemplateName = (typeof TEMPLATE_NAMES)[number]

export type MailTemplates = Record<
  TemplateName,
  { subject: CompiledTemplate; body: CompiledTemplate }
>

interface ConfigToml {
  auth?: {
    email?: {
      template?: Record<string, { subject?: string; content_path?: string }>
      secure_password_change?: unknown
    }
  }
}

/** The project's supabase/config.toml, as `supabase start` reads it. */
export const projectConfig = () =>
  parse(readFileSync(path.join(PROJECT_ROOT, 'supabase/config.toml'), 'utf8')) as ConfigToml

export function loadMailTemplates(config = projectConfig()): MailTemplates {
  const templates = {} as MailTemplates
  for (const name of TEMPLATE_NAMES) {
    const { subject, content_path: file } = config.auth?.email?.template?.[name] ?? {}
    if (!subject || !file)
      throw new UnsupportedTemplateError(
        `supabase/config.toml has no subject and content_path for [auth.email.template.${name}]: the local stack renders the project's own mail templates only`,
      )
    templates[name] = {
      subject: compileTemplate(subject, `subject of [auth.email.template.${name}]`),
      body: compileTemplate(readFileSync(path.resolve(PROJECT_ROOT, file), 'utf8'), file),
    }
  }
  return templates
}

export function renderMailTemplate(templates: MailTemplates, name: TemplateName, data: MailData) {
  return { subject: templates[name].subject.render(data), html: templates[name].body.render(data) }
}
