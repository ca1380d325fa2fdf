import { describe, expect, it } from 'vitest'

import {
  compileTemplate,
  TemplateExecError,
  TemplateSyntaxError,
  UnsupportedTemplateError,
} from './auth/go-template'

/**
 * The mail-template renderer against what Go's html/template produces for the same template
 * and data (the auth server parses its mail templates with html/template).
 */
const render = (source: string, data: Record<string, unknown> = {}) =>
  compileTemplate(source).render(data)

describe('html/template escaping', () => {
  it('escapes text like html/template (+ and quotes as numeric references)', () => {
    expect(render('<p>{{ .Email }}</p>', { Email: `a+b@x.com <"it's">&` })).toBe(
      '<p>a&#43;b@x.com &lt;&#34;it&#39;s&#34;&gt;&amp;</p>',
    )
  })

  it('filters and normalises a URL at the start of href, escapes it fully in the query', () => {
    const template =
      '<a href="{{ .SiteURL }}/auth/callback?token_hash={{ .TokenHash }}&type=signup&next={{ .RedirectTo }}">Go</a>'
    expect(
      render(template, {
        SiteURL: 'http://localhost:5173',
        TokenHash: 'pkce_abc',
        RedirectTo: 'http://localhost:5173/auth/callback?next=%2Fdashboard',
      }),
    ).toBe(
      '<a href="http://localhost:5173/auth/callback?token_hash=pkce_abc&type=signup&next=http%3a%2f%2flocalhost%3a5173%2fauth%2fcallback%3fnext%3d%252Fdashboard">Go</a>',
    )
  })

  it('keeps reserved characters and valid escapes before the query, HTML-escaping &', () => {
    expect(
      render('<a href="{{ .RedirectTo }}&amp;token_hash={{ .TokenHash }}">x</a>', {
        RedirectTo: 'http://localhost:5173/auth/callback?next=%2Fdashboard&a=b c',
        TokenHash: 'abc',
      }),
    ).toBe(
      '<a href="http://localhost:5173/auth/callback?next=%2Fdashboard&amp;a=b%20c&amp;token_hash=abc">x</a>',
    )
  })

  it('a bare Site URL breaks a link that appends its query to RedirectTo', () => {
    const html = render('<a href="{{ .RedirectTo }}&amp;token_hash={{ .TokenHash }}">x</a>', {
      RedirectTo: 'https://subscribely.example',
      TokenHash: 'abc',
    })
    expect(html).toBe('<a href="https://subscribely.example&amp;token_hash=abc">x</a>')
  })

  it('refuses an unsafe scheme at the start of a URL attribute', () => {
    expect(render('<a href="{{ .RedirectTo }}">x</a>', { RedirectTo: 'javascript:alert(1)' })).toBe(
      '<a href="#ZgotmplZ">x</a>',
    )
    expect(render('<a title="{{ .RedirectTo }}">x</a>', { RedirectTo: 'javascript:x' })).toBe(
      '<a title="javascript:x">x</a>',
    )
  })

  it('percent-encodes non-ASCII bytes in lowercase hex', () => {
    expect(render('<a href="/x?e={{ .Email }}">x</a>', { Email: 'zoë@x.com' })).toBe(
      '<a href="/x?e=zo%c3%ab%40x.com">x</a>',
    )
  })

  it('drops HTML comments, and actions inside them', () => {
    expect(render('<p>a<!-- {{ .Token }} secret -->b</p>', { Token: '123' })).toBe('<p>ab</p>')
  })

  it('escapes unquoted attribute values with the no-space escaper', () => {
    expect(render('<td title={{ .Email }}>x</td>', { Email: 'a b=c' })).toBe(
      '<td title=a&#32;b&#61;c>x</td>',
    )
  })
})

describe('data', () => {
  it('prints nothing for a missing key and fmt.Sprint for a map', () => {
    expect(render('[{{ .NewEmail }}][{{ .Data.name }}]', { Data: {} })).toBe('[][]')
    expect(render('{{ .Data }}', { Data: { plan: 'pro', name: 'Ada' } })).toBe(
      'map[name:Ada plan:pro]',
    )
    expect(render('{{ .Data.name }}', { Data: { name: 'Ada' } })).toBe('Ada')
  })

  it('if / else if / else / with, and trim markers', () => {
    const template =
      '{{- if .NewEmail -}} new {{- else if .Email }}current{{ else }}none{{ end -}} . {{ with .Data }}{{ .name }}{{ end }}'
    expect(render(template, { NewEmail: 'n@x', Data: { name: 'A' } })).toBe('new. A')
    expect(render(template, { Email: 'e@x', Data: {} })).toBe('current. ')
    expect(render(template, {})).toBe('none. ')
  })

  it('a field of a string is an execution error, as in Go', () => {
    expect(() => render('{{ .Email.Name }}', { Email: 'a@x' })).toThrow(TemplateExecError)
  })
})

describe('errors', () => {
  it('syntax errors Go would refuse at Parse', () => {
    expect(() => compileTemplate('{{ .Email ')).toThrow(TemplateSyntaxError)
    expect(() => compileTemplate('{{ if .Email }}x')).toThrow(TemplateSyntaxError)
    expect(() => compileTemplate('{{ end }}')).toThrow(TemplateSyntaxError)
    expect(() => compileTemplate('{{ .Email..x }}')).toThrow(TemplateSyntaxError)
    expect(() => compileTemplate('{{ if notAFunction }}{{ end }}')).toThrow(TemplateSyntaxError)
  })

  it('escaping errors surface when rendering (html/template escapes on first Execute)', () => {
    const ambiguous = compileTemplate('<a href="{{ if .A }}/x?{{ else }}/y{{ end }}{{ .B }}">x</a>')
    expect(() => ambiguous.render({})).toThrow(TemplateExecError)
    const unclosed = compileTemplate('<a href="{{ .A }}')
    expect(() => unclosed.render({ A: 'x' })).toThrow(TemplateExecError)
  })

  it('names what this renderer does not do', () => {
    expect(() => compileTemplate('{{ .Email | urlquery }}')).toThrow(UnsupportedTemplateError)
    expect(() => compileTemplate('{{ range .Data }}x{{ end }}')).toThrow(UnsupportedTemplateError)
    expect(() => compileTemplate('<script>var e = "{{ .Email }}"</script>')).toThrow(
      UnsupportedTemplateError,
    )
  })
})
