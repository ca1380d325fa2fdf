/**
 * The auth mails' templates as the auth server renders them (Go's html/template, supabase/auth
 * internal/mailer/templatemailer), for exactly what the project's templates use: `{{ .Field }}`,
 * a field of the mail's data, and in text `{{ if eq .Data.key "word" }}`, `{{ else if eq .Data.key
 * "word" }}`, `{{ else }}`, `{{ end }}` on a key of the user's metadata (`.Data`): a key that is
 * absent or null is unequal, another value than a string fails the mail as Go's `eq` does.
 * Anything else Go accepts (other conditions, `with`, `range`, pipes, functions, printing
 * `.Data.key`, comments, trim markers) is refused with UnsupportedTemplateError naming the
 * template and the construct: a template that needs more fails at once here instead of being
 * rendered differently from production.
 *
 * Escaping is html/template's for the two places a field may stand: in text the HTML escaper
 * (`&amp; &lt; &gt; &#34; &#39; &#43;`); in a quoted URL attribute (href, src, action, …) at its
 * start the URL filter (a scheme other than http, https or mailto becomes `#ZgotmplZ`) and
 * normaliser, and after its `?` or `#` full percent-encoding (lowercase hex). A field anywhere
 * else (a tag, another attribute, a URL's path, `<script>`, `<style>`, `<title>`, `<textarea>`),
 * an HTML comment and a field the auth server does not give as text are refused too. A field a
 * mail does not have (`.NewEmail` but in the email change mail) prints nothing, as in Go.
 */

export class UnsupportedTemplateError extends Error {}

type Escaper = (value: string) => string
/** An `if … else … end`: the first branch whose test holds (none: `else`) is rendered. */
type Branch = { test?: { key: string; word: string }; parts: Part[] }
type Part = string | { field: Field; escapers: Escaper[] } | Branch[]

const FIELD = /^\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*$/
const CONDITION = /^\s*(if|else if)\s+eq\s+\.Data\.([A-Za-z_][A-Za-z0-9_]*)\s+"([^"\\]*)"\s*$/
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
const URL_ATTRS =
  /^(action|archive|background|cite|classid|codebase|data|formaction|href|icon|longdesc|manifest|poster|profile|src|usemap|xmlns)$|src|uri|url/
const RAW = new Set(['script', 'style', 'title', 'textarea'])

type Context =
  | { state: 'text' }
  | { state: 'tag' }
  | { state: 'unquoted' }
  | { state: 'raw'; element: string }
  | { state: 'attr'; quote: string; url: boolean; part: 'start' | 'path' | 'query' }

function isUrlAttr(name: string) {
  let attr = name.toLowerCase()
  if (attr.startsWith('data-')) attr = attr.slice(5)
  else if (attr.includes(':')) attr = attr.slice(attr.indexOf(':') + 1)
  return !attr.startsWith('on') && URL_ATTRS.test(attr)
}

/** Runs template text through html/template's HTML states; returns the context after it. */
function afterText(start: Context, text: string, refuse: (construct: string) => Error) {
  let ctx = start
  let rest = text
  while (rest) {
    let taken: string
    if (ctx.state === 'text') {
      const at = rest.search(/<(!--|\/?[A-Za-z])/)
      if (at >= 0 && rest.startsWith('<!--', at)) throw refuse('an HTML comment')
      const tag = at < 0 ? null : /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(rest.slice(at))!
      taken = tag ? rest.slice(0, at) + tag[0] : rest
      if (tag)
        ctx =
          tag[1] || !RAW.has(tag[2].toLowerCase())
            ? { state: 'tag' }
            : { state: 'raw', element: tag[2].toLowerCase() }
    } else if (ctx.state === 'raw') {
      const close = rest.toLowerCase().indexOf(`</${ctx.element}`)
      taken = close < 0 ? rest : rest.slice(0, close)
      if (close >= 0) ctx = { state: 'text' }
    } else if (ctx.state === 'tag') {
      const attr = /^[\s/]*(?:(>)|([^\s=>/]+)\s*(?:=\s*(["']?))?)?/.exec(rest)!
      taken = attr[0] || rest[0]
      if (attr[1]) ctx = { state: 'text' }
      else if (attr[3])
        ctx = { state: 'attr', quote: attr[3], url: isUrlAttr(attr[2]), part: 'start' }
      else if (attr[3] === '') ctx = { state: 'unquoted' }
    } else if (ctx.state === 'unquoted') {
      const end = rest.search(/[\s>]/)
      taken = end < 0 ? rest : rest.slice(0, end)
      if (end >= 0) ctx = { state: 'tag' }
    } else {
      const end = rest.indexOf(ctx.quote)
      const value = end < 0 ? rest : rest.slice(0, end)
      taken = end < 0 ? rest : rest.slice(0, end + 1)
      if (end >= 0) ctx = { state: 'tag' }
      else if (/[?#]/.test(value)) ctx = { ...ctx, part: 'query' }
      else if (ctx.part === 'start' && value.trim()) ctx = { ...ctx, part: 'path' }
    }
    rest = rest.slice(taken.length)
  }
  return ctx
}

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

/** html/template's urlProcessor: byte by byte over UTF-8, `%xx` in lowercase hex. */
function processUrl(value: string, normalize: boolean) {
  const bytes = Buffer.from(value, 'utf8')
  let out = ''
  for (let i = 0; i < bytes.length; i++) {
    const char = String.fromCharCode(bytes[i])
    const keep =
      /[A-Za-z0-9\-._~]/.test(char) ||
      (normalize && '!#$&*+,/:;=?@[]'.includes(char)) ||
      (normalize &&
        char === '%' &&
        /^[0-9a-fA-F]{2}$/.test(bytes.subarray(i + 1, i + 3).toString('latin1')))
    out += keep ? char : `%${bytes[i].toString(16).padStart(2, '0')}`
  }
  return out
}
const normalizeUrl: Escaper = (value) => processUrl(value, true)
const escapeUrl: Escaper = (value) => processUrl(value, false)

const WHERE = {
  tag: 'inside a tag',
  unquoted: 'in an unquoted attribute value',
  path: "in a URL's path",
}

function escapersFor(ctx: Context): Escaper[] | string {
  if (ctx.state === 'text') return [escapeHtml]
  if (ctx.state === 'raw') return `inside <${ctx.element}>`
  if (ctx.state !== 'attr') return WHERE[ctx.state]
  if (!ctx.url) return 'in an attribute other than a URL'
  if (ctx.part === 'start') return [filterUrl, normalizeUrl, escapeHtml]
  return ctx.part === 'query' ? [escapeUrl, escapeHtml] : WHERE.path
}

export interface CompiledTemplate {
  render(data: MailData): string
}

/** Compiles a template; `name` (its file, or what it is) names it in UnsupportedTemplateError. */
export function compileTemplate(source: string, name: string): CompiledTemplate {
  const refuse = (construct: string, why: string) =>
    new UnsupportedTemplateError(
      `the mail template ${name} uses ${construct}${why}: the local stack renders only {{ .Field }} in text and URL attributes, and {{ if eq .Data.key "word" }} in text`,
    )
  const parts: Part[] = []
  // The `if`s open around the text now read, innermost last.
  const open: Branch[][] = []
  let context: Context = { state: 'text' }
  let rest = source
  while (rest) {
    const target = open.at(-1)?.at(-1)?.parts ?? parts
    const at = rest.indexOf('{{')
    const text = at < 0 ? rest : rest.slice(0, at)
    context = afterText(context, text, (construct) => refuse(construct, ''))
    if (text) target.push(text)
    if (at < 0) break
    const close = rest.indexOf('}}', at)
    if (close < 0) throw refuse(`"${rest.slice(at, at + 40)}"`, ', an unclosed action')
    const action = rest.slice(at, close + 2)
    rest = rest.slice(close + 2)
    const condition = CONDITION.exec(action.slice(2, -2))
    const keyword = condition?.[1] ?? /^\s*(else|end)\s*$/.exec(action.slice(2, -2))?.[1]
    if (keyword) {
      if (context.state !== 'text') throw refuse(`"${action}"`, ' outside text')
      const branches = open.at(-1)
      const test = condition ? { key: condition[2], word: condition[3] } : undefined
      if (keyword === 'if') {
        target.push([{ test, parts: [] }])
        open.push(target.at(-1) as Branch[])
      } else if (!branches || (keyword !== 'end' && !branches.at(-1)!.test)) {
        throw refuse(`"${action}"`, ' out of place')
      } else if (keyword === 'end') open.pop()
      else branches.push({ test, parts: [] })
      continue
    }
    const field = FIELD.exec(action.slice(2, -2))?.[1] as Field | undefined
    if (!field || !FIELDS.includes(field)) throw refuse(`"${action}"`, '')
    const escapers = escapersFor(context)
    if (typeof escapers === 'string') throw refuse(`"${action}"`, ` ${escapers}`)
    target.push({ field, escapers })
    if (context.state === 'attr' && context.part === 'start') context = { ...context, part: 'path' }
  }
  if (context.state !== 'text') throw refuse('an unclosed tag or attribute', ' at its end')
  if (open.length) throw refuse('an if', ' without its end')
  const holds = (test: Branch['test'], data: MailData) => {
    if (!test) return true
    const value = data.Data?.[test.key]
    if (typeof value === 'string' || value === undefined || value === null)
      return value === test.word
    throw new Error(`template: ${name}: error calling eq: incompatible types for comparison`)
  }
  const render = (list: Part[], data: MailData): string =>
    list
      .map((part) => {
        if (typeof part === 'string') return part
        if (Array.isArray(part)) {
          const branch = part.find(({ test }) => holds(test, data))
          return branch ? render(branch.parts, data) : ''
        }
        return part.escapers.reduce((out, escape) => escape(out), data[part.field] ?? '')
      })
      .join('')
  return { render: (data) => render(parts, data) }
}
