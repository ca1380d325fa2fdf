/**
 * The auth mails' templates as the auth server renders them (Go's html/template, supabase/auth
 * internal/mailer/templatemailer), for what the project's templates use and nothing more:
 * `{{ .Field }}` in text or at the start or in the query of an `href`, and in text
 * `{{ if eq .Data.key "word" }}`, `{{ else if eq .Data.key "word" }}`, `{{ else }}`, `{{ end }}`,
 * not nested. Anything else is refused with UnsupportedTemplateError naming the template and the
 * construct: a template that needs more fails at once instead of rendering unlike production.
 * Escaping is html/template's: in text the HTML escaper; at a URL's start the scheme filter
 * (`#ZgotmplZ`) and normaliser, in its query full percent-encoding (lowercase hex), then HTML.
 */
export class UnsupportedTemplateError extends Error {}

/** The auth server's mail variables that are text (`.Data`, the user's metadata, is a map). */
const FIELDS = [
  'SiteURL',
  'ConfirmationURL',
  'Email',
  'NewEmail',
  'SendingTo',
  'Token',
  'TokenHash',
  'RedirectTo',
] as const
type Field = (typeof FIELDS)[number]
export type MailData = Partial<Record<Field, string>> & { Data?: Record<string, unknown> }

type Escaper = (value: string) => string
type Branch = { test?: { key: string; word: string }; parts: Part[] }
type Part = string | { field: Field; escapers: Escaper[] } | { branches: Branch[] }

const HTML_ESCAPES: Record<string, string> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  '&': '&amp;',
  "'": '&#39;',
  '+': '&#43;',
  '<': '&lt;',
  '>': '&gt;',
}
const escapeHtml: Escaper = (value) => value.replace(/[\0"&'+<>]/g, (char) => HTML_ESCAPES[char])
const filterUrl: Escaper = (value) => {
  const scheme = /^([^/:]*):/.exec(value)?.[1].toLowerCase()
  return scheme === undefined || ['http', 'https', 'mailto'].includes(scheme) ? value : '#ZgotmplZ'
}
/** html/template's urlProcessor: each UTF-8 byte of a character it does not keep as `%xx`. */
const percent = (char: string) =>
  [...Buffer.from(char)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')
const normalizeUrl: Escaper = (value) =>
  value.replace(/%(?![0-9a-fA-F]{2})|[^\w\-.~!#$&*+,/:;=?@[\]%]/gu, percent)
const escapeUrl: Escaper = (value) => value.replace(/[^\w\-.~]/gu, percent)

const TEXT = [escapeHtml]
/** A tag the text ends inside: `<name`, its attributes, perhaps a quoted value still open. */
const OPEN_TAG = /<[A-Za-z](?:[^<>"']|"[^"]*"|'[^']*')*?("[^"]*|'[^']*)?$/

/** The escapers of a field after `before`, or why it cannot stand there. */
function escapersAfter(before: string): Escaper[] | string {
  const raw = /<(script|style|title|textarea)[\s>](?![\s\S]*<\/\1)/i.exec(before)
  if (raw) return `inside <${raw[1].toLowerCase()}>`
  const tag = OPEN_TAG.exec(before)
  if (!tag) return TEXT
  const href = /\shref\s*=\s*["']([^"']*)$/i.exec(tag[0])
  if (!href) return tag[1] ? 'in an attribute other than href' : 'inside a tag'
  if (!href[1]) return [filterUrl, normalizeUrl, escapeHtml]
  return /[?#]/.test(href[1]) ? [escapeUrl, escapeHtml] : "in a URL's path"
}

const ACTION = /^{{\s*(?:(if|else if)\s+eq\s+\.Data\.(\w+)\s+"([^"\\]*)"|(else|end))\s*}}$/

export interface CompiledTemplate {
  render(data: MailData): string
}

/** Compiles a template; `name` (its file, or what it is) names it in UnsupportedTemplateError. */
export function compileTemplate(source: string, name: string): CompiledTemplate {
  const refuse = (construct: string) =>
    new UnsupportedTemplateError(
      `the mail template ${name} uses ${construct}: the local stack renders only {{ .Field }} in text and href, and {{ if eq .Data.key "word" }} in text`,
    )
  if (source.includes('<!--')) throw refuse('an HTML comment')
  const parts: Part[] = []
  let open: Branch[] | undefined
  // The text so far, each field as `_`: what decides the context of the next action.
  let before = ''
  source.split(/({{[\s\S]*?}})/).forEach((piece, index) => {
    const target = open?.at(-1)!.parts ?? parts
    if (index % 2 === 0) {
      const unclosed = piece.indexOf('{{')
      if (unclosed >= 0)
        throw refuse(`"${piece.slice(unclosed, unclosed + 40)}", an unclosed action`)
      before += piece
      if (piece) target.push(piece)
      return
    }
    const escapers = escapersAfter(before)
    const field = /^{{\s*\.(\w+)\s*}}$/.exec(piece)?.[1] as Field
    if (FIELDS.includes(field)) {
      if (typeof escapers === 'string') throw refuse(`"${piece}" ${escapers}`)
      target.push({ field, escapers })
      before += '_'
      return
    }
    const [, condition, key, word, keyword = condition] = ACTION.exec(piece) ?? []
    if (!keyword) throw refuse(`"${piece}"`)
    if (escapers !== TEXT) throw refuse(`"${piece}" outside text`)
    const test = condition ? { key, word } : undefined
    if (keyword === 'if' && open) throw refuse(`"${piece}" inside an if`)
    if (keyword === 'if') {
      open = [{ test, parts: [] }]
      parts.push({ branches: open })
    } else if (!open || (keyword !== 'end' && !open.at(-1)!.test))
      throw refuse(`"${piece}" out of place`)
    else if (keyword === 'end') open = undefined
    else open.push({ test, parts: [] })
  })
  if (OPEN_TAG.test(before)) throw refuse('an unclosed tag or attribute at its end')
  if (open) throw refuse('an if without its end')
  const holds = ({ test }: Branch, data: MailData) => {
    const value = test && data.Data?.[test.key]
    if (value != null && typeof value !== 'string')
      throw new Error(`template: ${name}: error calling eq: incompatible types for comparison`)
    return !test || value === test.word
  }
  const render = (list: Part[], data: MailData): string =>
    list
      .map((part) => {
        if (typeof part === 'string') return part
        if ('field' in part)
          return part.escapers.reduce((out, escape) => escape(out), data[part.field] ?? '')
        const branch = part.branches.find((each) => holds(each, data))
        return branch ? render(branch.parts, data) : ''
      })
      .join('')
  return { render: (data) => render(parts, data) }
}
