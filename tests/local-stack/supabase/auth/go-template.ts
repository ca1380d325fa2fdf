/**
 * The part of Go's html/template that the auth server's mail templates use
 * (supabase/auth internal/mailer/templatemailer: `template.New(…).Parse(body)` from
 * html/template, executed with a map of strings and `.Data`, the user's metadata).
 *
 * Syntax: `{{ .Field }}`, `{{ .Data.key }}`, `{{ . }}`, `{{ if … }}…{{ else if … }}…{{ else }}…
 * {{ end }}`, `{{ with … }}…{{ else }}…{{ end }}`, comments `{{/* … *\/}}` and the trim
 * markers `{{-` / `-}}`. Anything else Go accepts (functions, pipes, range, variables,
 * define/template/block) is refused with UnsupportedTemplateError, a limit of this stand-in,
 * not of the service.
 *
 * Escaping is html/template's contextual escaping, worked out from the template's text alone
 * as Go does: in text and quoted attributes the HTML escaper (`&amp; &lt; &gt; &#34; &#39;
 * &#43;`); in a URL attribute (href, src, action, …) the URL filter (a scheme other than
 * http, https or mailto becomes `#ZgotmplZ`) and normaliser at the start, the normaliser
 * before `?`/`#`, and full percent-encoding (lowercase hex) in the query or fragment; HTML
 * comments are dropped from the output. A missing map key prints nothing. Actions inside
 * `<script>`, `<style>`, `style=""` or `on…=""` are refused as unsupported.
 */

export class TemplateSyntaxError extends Error {}
export class UnsupportedTemplateError extends Error {}
export class TemplateExecError extends Error {}

type Path = string[] // [] is `.`
type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; path: Path; escapers: Escaper[] }
  | { kind: 'if' | 'with'; path: Path; then: Node[]; otherwise: Node[] }

type Escaper = 'html' | 'nospace' | 'urlFilter' | 'urlNormalize' | 'urlEscape'

// ---------------------------------------------------------------------------------------
// Parsing

interface Token {
  kind: 'text' | 'action'
  value: string
}

function lex(source: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  while (i < source.length) {
    const open = source.indexOf('{{', i)
    if (open < 0) {
      tokens.push({ kind: 'text', value: source.slice(i) })
      break
    }
    let text = source.slice(i, open)
    let start = open + 2
    if (/^-[ \t\r\n]/.test(source.slice(start, start + 2))) {
      text = text.replace(/\s+$/, '')
      start += 1
    }
    if (text) tokens.push({ kind: 'text', value: text })
    let close: number
    if (source.slice(start).trimStart().startsWith('/*')) {
      close = source.indexOf('*/', start)
      if (close < 0) throw new TemplateSyntaxError('unclosed comment')
      close = source.indexOf('}}', close)
    } else {
      close = source.indexOf('}}', start)
    }
    if (close < 0) throw new TemplateSyntaxError('unclosed action')
    let inner = source.slice(start, close)
    let next = close + 2
    if (/[ \t\r\n]-$/.test(inner)) {
      inner = inner.slice(0, -1)
      const rest = source.slice(next)
      next += rest.length - rest.replace(/^\s+/, '').length
    }
    tokens.push({ kind: 'action', value: inner.trim() })
    i = next
  }
  return tokens
}

/** Go's predefined template functions (text/template funcs.go): valid, but not rendered here. */
const GO_FUNCTIONS = new Set(
  'and call html index slice js len not or print printf println urlquery eq ge gt le lt ne'.split(
    ' ',
  ),
)

const FIELD_PATH = /^\.(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)?$/

function parsePath(text: string): Path {
  if (!FIELD_PATH.test(text)) {
    if (/^\.[^\s]*$/.test(text) && !/[|()$"'`]/.test(text))
      throw new TemplateSyntaxError(`bad field name in "${text}"`)
    const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text)?.[0]
    if (word && !GO_FUNCTIONS.has(word) && !['true', 'false', 'nil'].includes(word))
      throw new TemplateSyntaxError(`function "${word}" not defined`)
    throw new UnsupportedTemplateError(
      `"{{ ${text} }}": only field references (.Name, .Data.key) are rendered locally`,
    )
  }
  return text === '.' ? [] : text.slice(1).split('.')
}

function parse(source: string): Node[] {
  const tokens = lex(source)
  let position = 0

  // Returns the nodes up to a closing keyword, and that keyword.
  function parseList(): { nodes: Node[]; end: string | null } {
    const nodes: Node[] = []
    while (position < tokens.length) {
      const token = tokens[position++]
      if (token.kind === 'text') {
        nodes.push({ kind: 'text', text: token.value })
        continue
      }
      const action = token.value
      if (action.startsWith('/*')) continue
      if (action === '') throw new TemplateSyntaxError('missing value for command')
      if (action === 'end' || action === 'else' || /^else\s/.test(action)) {
        return { nodes, end: action }
      }
      const block = /^(if|with)\s+(.+)$/.exec(action)
      if (block) {
        nodes.push(parseBlock(block[1] as 'if' | 'with', block[2].trim()))
        continue
      }
      if (/^(if|with)$/.test(action)) throw new TemplateSyntaxError(`missing value for ${action}`)
      if (/^(range|define|template|block|break|continue)\b/.test(action) || action.startsWith('$'))
        throw new UnsupportedTemplateError(`"{{ ${action} }}" is not rendered locally`)
      nodes.push({ kind: 'action', path: parsePath(action), escapers: [] })
    }
    return { nodes, end: null }
  }

  function parseBlock(kind: 'if' | 'with', condition: string): Node {
    const then = parseList()
    const node = { kind, path: parsePath(condition), then: then.nodes, otherwise: [] as Node[] }
    if (then.end === null) throw new TemplateSyntaxError(`unexpected EOF in {{ ${kind} }}`)
    if (then.end === 'else') {
      const otherwise = parseList()
      if (otherwise.end !== 'end')
        throw new TemplateSyntaxError(`expected end; found ${otherwise.end ?? 'EOF'}`)
      node.otherwise = otherwise.nodes
    } else if (then.end.startsWith('else ')) {
      const chained = /^else\s+(if|with)\s+(.+)$/.exec(then.end)
      if (!chained) throw new TemplateSyntaxError(`unexpected "${then.end}"`)
      // `else if x` … `end` is `else` `if x` … `end` `end` with one shared end
      node.otherwise = [parseBlock(chained[1] as 'if' | 'with', chained[2].trim())]
    }
    return node
  }

  const { nodes, end } = parseList()
  if (end !== null) throw new TemplateSyntaxError(`unexpected {{ ${end} }}`)
  return nodes
}

// ---------------------------------------------------------------------------------------
// Contextual escaping (html/template's escaper, for the contexts mail templates use)

type State = 'text' | 'tag' | 'afterName' | 'beforeValue' | 'attr' | 'comment' | 'rcdata' | 'raw'
type AttrType = 'plain' | 'url' | 'css' | 'js'
type UrlPart = 'none' | 'preQuery' | 'queryOrFrag' | 'unknown'

interface Context {
  state: State
  delim: '"' | "'" | ' ' | null
  attr: AttrType
  urlPart: UrlPart
  /** The element whose start tag is open, or whose raw text we are in (script, style, title…). */
  element: string
}

const START: Context = { state: 'text', delim: null, attr: 'plain', urlPart: 'none', element: '' }
const URL_ATTRS = new Set([
  'action',
  'archive',
  'background',
  'cite',
  'classid',
  'codebase',
  'data',
  'formaction',
  'href',
  'icon',
  'longdesc',
  'manifest',
  'poster',
  'profile',
  'src',
  'usemap',
  'xmlns',
])
const RCDATA = new Set(['title', 'textarea'])
const RAW = new Set(['script', 'style'])

function attrType(name: string): AttrType {
  let attr = name.toLowerCase()
  if (attr.startsWith('data-')) attr = attr.slice(5)
  else if (attr.includes(':')) attr = attr.slice(attr.indexOf(':') + 1)
  if (attr.startsWith('on')) return 'js'
  if (attr === 'style') return 'css'
  if (URL_ATTRS.has(attr) || /src|uri|url/.test(attr)) return 'url'
  return 'plain'
}

function urlAfter(part: UrlPart, text: string): UrlPart {
  if (/[?#]/.test(text)) return 'queryOrFrag'
  if (part === 'none' && text.trim() !== '') return 'preQuery'
  return part
}

/** Runs template text through the HTML state machine; returns the output text and context. */
function afterText(c: Context, text: string): { context: Context; output: string } {
  let output = ''
  let i = 0
  let ctx = { ...c }
  while (i < text.length) {
    const rest = text.slice(i)
    switch (ctx.state) {
      case 'text': {
        const lt = rest.search(/<(!--|\/?[A-Za-z])/)
        if (lt < 0) {
          output += rest
          i = text.length
          break
        }
        output += rest.slice(0, lt)
        i += lt
        if (text.startsWith('<!--', i)) {
          ctx = { ...ctx, state: 'comment' }
          i += 4
          break
        }
        const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(text.slice(i))!
        output += tag[0]
        i += tag[0].length
        ctx = { ...START, state: 'tag', element: tag[1] ? '' : tag[2].toLowerCase() }
        break
      }
      case 'comment': {
        const end = rest.indexOf('-->')
        if (end < 0) {
          i = text.length
        } else {
          i += end + 3
          ctx = { ...ctx, state: 'text' }
        }
        break
      }
      case 'rcdata':
      case 'raw': {
        const close = rest.toLowerCase().indexOf(`</${ctx.element}`)
        if (close < 0) {
          output += rest
          i = text.length
        } else {
          output += rest.slice(0, close)
          i += close
          ctx = { ...START }
        }
        break
      }
      case 'tag':
      case 'afterName': {
        const space = /^[\s/]*/.exec(rest)![0]
        output += space
        i += space.length
        if (i >= text.length) break
        if (text[i] === '>') {
          output += '>'
          i++
          const element = ctx.element
          ctx = RCDATA.has(element)
            ? { ...START, state: 'rcdata', element }
            : RAW.has(element)
              ? { ...START, state: 'raw', element }
              : { ...START }
          break
        }
        if (ctx.state === 'afterName' && text[i] === '=') {
          output += '='
          i++
          ctx = { ...ctx, state: 'beforeValue' }
          break
        }
        const name = /^[^\s=>/]+/.exec(text.slice(i))?.[0] ?? text[i]
        output += name
        i += name.length
        ctx = { ...ctx, state: 'afterName', attr: attrType(name), urlPart: 'none' }
        break
      }
      case 'beforeValue': {
        const space = /^\s*/.exec(rest)![0]
        output += space
        i += space.length
        if (i >= text.length) break
        const quote = text[i]
        if (quote === '"' || quote === "'") {
          output += quote
          i++
          ctx = { ...ctx, state: 'attr', delim: quote }
        } else {
          ctx = { ...ctx, state: 'attr', delim: ' ' }
        }
        break
      }
      case 'attr': {
        const end = ctx.delim === ' ' ? rest.search(/[\s>]/) : rest.indexOf(ctx.delim as string)
        const value = end < 0 ? rest : rest.slice(0, end)
        output += value
        if (ctx.attr === 'url') ctx = { ...ctx, urlPart: urlAfter(ctx.urlPart, value) }
        if (end < 0) {
          i = text.length
          break
        }
        i += end
        if (ctx.delim !== ' ') {
          output += text[i]
          i++
        }
        ctx = { ...ctx, state: 'tag', delim: null, attr: 'plain', urlPart: 'none' }
        break
      }
    }
  }
  return { context: ctx, output }
}

function escapersFor(c: Context, where: string): Escaper[] {
  switch (c.state) {
    case 'text':
    case 'rcdata':
      return ['html']
    case 'attr': {
      const last: Escaper = c.delim === ' ' ? 'nospace' : 'html'
      if (c.attr === 'plain') return [last]
      if (c.attr === 'url') {
        if (c.urlPart === 'none') return ['urlFilter', 'urlNormalize', last]
        if (c.urlPart === 'preQuery') return ['urlNormalize', last]
        if (c.urlPart === 'queryOrFrag') return ['urlEscape', last]
        throw new TemplateExecError(`${where} appears in an ambiguous context within a URL`)
      }
      throw new UnsupportedTemplateError(
        `${where}: actions in ${c.attr} attributes are not rendered locally`,
      )
    }
    case 'comment':
      return []
    default:
      throw new UnsupportedTemplateError(
        `${where}: actions in ${c.state === 'raw' ? `<${c.element}>` : 'a tag'} are not rendered locally`,
      )
  }
}

function sameContext(a: Context, b: Context) {
  return a.state === b.state && a.delim === b.delim && a.attr === b.attr && a.urlPart === b.urlPart
}

/** Annotates actions with their escapers, rewrites text (comments dropped); returns the end context. */
function escapeList(nodes: Node[], start: Context): { nodes: Node[]; context: Context } {
  let context = start
  const out: Node[] = []
  for (const node of nodes) {
    if (node.kind === 'text') {
      const after = afterText(context, node.text)
      context = after.context
      if (after.output) out.push({ kind: 'text', text: after.output })
    } else if (node.kind === 'action') {
      const where = `{{ .${node.path.join('.')} }}`
      if (context.state === 'comment') continue
      // an action right after `=` starts an unquoted value
      if (context.state === 'beforeValue') context = { ...context, state: 'attr', delim: ' ' }
      out.push({ ...node, escapers: escapersFor(context, where) })
      if (context.state === 'attr' && context.attr === 'url')
        context = { ...context, urlPart: context.urlPart === 'none' ? 'preQuery' : context.urlPart }
    } else {
      const then = escapeList(node.then, context)
      const otherwise = escapeList(node.otherwise, context)
      let end = then.context
      if (!sameContext(then.context, otherwise.context)) {
        if (
          then.context.state === 'attr' &&
          otherwise.context.state === 'attr' &&
          then.context.attr === 'url' &&
          otherwise.context.attr === 'url' &&
          then.context.delim === otherwise.context.delim
        ) {
          end = { ...then.context, urlPart: 'unknown' }
        } else {
          throw new TemplateExecError(`{{ ${node.kind} }} branches end in different contexts`)
        }
      }
      out.push({ ...node, then: then.nodes, otherwise: otherwise.nodes })
      context = end
    }
  }
  return { nodes: out, context }
}

// ---------------------------------------------------------------------------------------
// Execution

const HTML_ESCAPES: Record<string, string> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  '&': '&amp;',
  "'": '&#39;',
  '+': '&#43;',
  '<': '&lt;',
  '>': '&gt;',
}
const NOSPACE_ESCAPES: Record<string, string> = {
  ...HTML_ESCAPES,
  '\0': '&#xfffd;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\v': '&#11;',
  '\f': '&#12;',
  '\r': '&#13;',
  ' ': '&#32;',
  '=': '&#61;',
  '`': '&#96;',
}

/** html/template's urlProcessor: byte by byte over UTF-8, `%xx` in lowercase hex. */
function processUrl(value: string, normalize: boolean) {
  const bytes = Buffer.from(value, 'utf8')
  let out = ''
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]
    const char = String.fromCharCode(c)
    if (/[A-Za-z0-9\-._~]/.test(char)) {
      out += char
      continue
    }
    if (normalize && '!#$&*+,/:;=?@[]'.includes(char)) {
      out += char
      continue
    }
    if (
      normalize &&
      char === '%' &&
      i + 2 < bytes.length &&
      /^[0-9a-fA-F]{2}$/.test(String.fromCharCode(bytes[i + 1], bytes[i + 2]))
    ) {
      out += char
      continue
    }
    out += `%${c.toString(16).padStart(2, '0')}`
  }
  return out
}

function applyEscaper(escaper: Escaper, value: string) {
  switch (escaper) {
    case 'html':
      return value.replace(/[\0"&'+<>]/g, (char) => HTML_ESCAPES[char])
    case 'nospace':
      return value.replace(/[\0\t\n\v\f\r "&'+<=>`]/g, (char) => NOSPACE_ESCAPES[char])
    case 'urlFilter': {
      const colon = value.indexOf(':')
      if (colon >= 0 && !value.slice(0, colon).includes('/')) {
        const scheme = value.slice(0, colon).toLowerCase()
        if (scheme !== 'http' && scheme !== 'https' && scheme !== 'mailto') return '#ZgotmplZ'
      }
      return value
    }
    case 'urlNormalize':
      return processUrl(value, true)
    case 'urlEscape':
      return processUrl(value, false)
  }
}

/** fmt.Sprint of a JSON-like value (maps print as `map[k:v]`, keys sorted). */
function sprint(value: unknown): string {
  if (value === null || value === undefined) return '<nil>'
  if (Array.isArray(value)) return `[${value.map(sprint).join(' ')}]`
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    )
    return `map[${entries.map(([k, v]) => `${k}:${sprint(v)}`).join(' ')}]`
  }
  return String(value)
}

function lookup(dot: unknown, path: Path): unknown {
  let value = dot
  for (const name of path) {
    if (value === null || value === undefined) return undefined
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new TemplateExecError(`can't evaluate field ${name} in type ${goType(value)}`)
    }
    value = (value as Record<string, unknown>)[name]
  }
  return value
}

function goType(value: unknown) {
  if (typeof value === 'string') return 'string'
  if (typeof value === 'number') return 'float64'
  if (typeof value === 'boolean') return 'bool'
  if (Array.isArray(value)) return '[]interface {}'
  return 'interface {}'
}

/** Go's truth: false, 0, "", nil, and empty maps and slices are false. */
function truthy(value: unknown) {
  if (value === null || value === undefined || value === false || value === 0 || value === '')
    return false
  if (Array.isArray(value)) return value.length > 0
  if (typeof value === 'object') return Object.keys(value as object).length > 0
  return true
}

function execute(nodes: Node[], dot: unknown): string {
  let out = ''
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text
    else if (node.kind === 'action') {
      const value = lookup(dot, node.path)
      // html/template skips untyped nil: a missing key prints nothing
      let text = value === undefined || value === null ? '' : sprint(value)
      for (const escaper of node.escapers) text = applyEscaper(escaper, text)
      out += text
    } else {
      const value = lookup(dot, node.path)
      if (truthy(value)) out += execute(node.then, node.kind === 'with' ? value : dot)
      else out += execute(node.otherwise, dot)
    }
  }
  return out
}

export interface CompiledTemplate {
  render(data: Record<string, unknown>): string
}

/**
 * Parses a template (TemplateSyntaxError where Go's Parse fails, UnsupportedTemplateError for
 * what this renderer does not do). Like html/template, which escapes on the first Execute, an
 * escaping error (TemplateExecError) is raised by render, as the service raises it on sending.
 */
export function compileTemplate(source: string): CompiledTemplate {
  const parsed = parse(source)
  let escaped: Node[] | TemplateExecError
  try {
    const { nodes, context } = escapeList(parsed, START)
    escaped =
      context.state === 'text'
        ? nodes
        : new TemplateExecError(`template ends in a non-text context (${context.state})`)
  } catch (error) {
    if (!(error instanceof TemplateExecError)) throw error
    escaped = error
  }
  return {
    render(data) {
      if (escaped instanceof TemplateExecError) throw escaped
      return execute(escaped, data)
    },
  }
}
