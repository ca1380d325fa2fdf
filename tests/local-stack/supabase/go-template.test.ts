import { describe, expect, it } from 'vitest'

import { compileTemplate } from './auth/go-template'

/**
 * The mail-template renderer against what Go's html/template produces for the same template
 * and data (the auth server parses its mail templates with html/template), and its refusal of
 * everything but `{{ .Field }}` in text, quoted attributes and URLs.
 */
const render = (source: string, data: Record<string, string> = {}) =>
  compileTemplate(source, 't.html').render(data)

describe('html/template escaping', () => {
  it('escapes text like html/template (+ and quotes as numeric references)', () => {
    expect(render('<p>{{.Email}}</p>', { Email: `a+b@x.com <"it's">&` })).toBe(
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

  it('refuses an unsafe scheme at the start of a URL attribute', () => {
    expect(
      render('<a href="{{ .RedirectTo }}">x</a>', {
        RedirectTo: 'javascript:alert(1)',
      }),
    ).toBe('<a href="#ZgotmplZ">x</a>')
    expect(
      render("<a title='{{ .RedirectTo }}'>x</a>", {
        RedirectTo: 'javascript:x',
      }),
    ).toBe("<a title='javascript:x'>x</a>")
  })

  it('percent-encodes non-ASCII bytes in lowercase hex; drops HTML comments; a missing key is empty', () => {
    expect(render('<a href="/x?e={{ .Email }}">x</a>', { Email: 'zoë@x.com' })).toBe(
      '<a href="/x?e=zo%c3%ab%40x.com">x</a>',
    )
    expect(render('<p>a<!-- note -->b[{{ .NewEmail }}]</p>')).toBe('<p>ab[]</p>')
  })
})

describe('what it refuses, naming the template and the construct', () => {
  it.each([
    ['{{ if .Email }}x{{ end }}', '"{{ if .Email }}"'],
    ['{{ .Data.name }}', '"{{ .Data.name }}"'],
    ['{{ . }}', '"{{ . }}"'],
    ['{{ .Data }}', '"{{ .Data }}"'],
    ['{{ .Email | urlquery }}', '"{{ .Email | urlquery }}"'],
    ['{{- .Email }}', '"{{- .Email }}"'],
    ['{{/* a comment */}}', '"{{/* a comment */}}"'],
    ['<p>{{ .Email </p>', '"{{ .Email </p>", an unclosed action'],
    ['<script>var e = "{{ .Email }}"</script>', '"{{ .Email }}" inside <script>'],
    ['<title>{{ .Email }}</title>', '"{{ .Email }}" inside <title>'],
    ['<a onclick="f({{ .Email }})">x</a>', '"{{ .Email }}" in a script (on…) attribute'],
    ['<p style="color: {{ .Email }}">x</p>', '"{{ .Email }}" in a style attribute'],
    ['<td title={{ .Email }}>x</td>', '"{{ .Email }}" in an unquoted attribute value'],
    ['<a {{ .Email }}>x</a>', '"{{ .Email }}" inside a tag'],
    ['<!-- {{ .Email }} -->', '"{{ .Email }}" in an HTML comment'],
    ['<a href="{{ .SiteURL }}', 'an unclosed tag, attribute or comment at its end'],
  ])('%s', (source, construct) => {
    expect(() => compileTemplate(source, 'supabase/templates/t.html')).toThrow(
      `the mail template supabase/templates/t.html uses ${construct}: the local stack renders only {{ .Field }} in text, quoted attributes and URLs`,
    )
  })
})
