import { describe, expect, it } from 'vitest'

import { compileTemplate, type MailData } from './auth/go-template'

/**
 * The mail-template renderer against what Go's html/template produces for the same template
 * and data (the auth server parses its mail templates with html/template), and its refusal of
 * everything but `{{ .Field }}` in text and URL attributes, and `if eq .Data.key` in text.
 */
const render = (source: string, data: MailData = {}) =>
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

  it('keeps reserved characters and valid escapes at the start, HTML-escaping &', () => {
    expect(
      render('<a href="{{ .RedirectTo }}">x</a>', {
        RedirectTo: 'http://localhost:5173/auth/callback?next=%2Fdashboard&a=b c',
      }),
    ).toBe('<a href="http://localhost:5173/auth/callback?next=%2Fdashboard&amp;a=b%20c">x</a>')
  })

  it('refuses an unsafe scheme at the start of a URL attribute', () => {
    expect(render('<a href="{{ .RedirectTo }}">x</a>', { RedirectTo: 'javascript:alert(1)' })).toBe(
      '<a href="#ZgotmplZ">x</a>',
    )
  })

  it('percent-encodes non-ASCII bytes in lowercase hex; a missing key is empty', () => {
    expect(render('<a href="/x?e={{ .Email }}">x</a>', { Email: 'zoë@x.com' })).toBe(
      '<a href="/x?e=zo%c3%ab%40x.com">x</a>',
    )
    expect(render('<p>[{{ .NewEmail }}]</p>')).toBe('<p>[]</p>')
  })
})

describe('if eq on the user metadata', () => {
  const choice =
    '<p>{{ if eq .Data.code_for "delete-account" }}Delete {{ .Email }}{{ else if eq .Data.code_for "change-email" }}Change{{ else }}Sign in{{ end }}</p>'

  it('renders the first branch whose word the key equals, else the else', () => {
    const data = (code_for: unknown) => ({ Email: 'a+b@x.com', Data: { code_for } })
    expect(render(choice, data('delete-account'))).toBe('<p>Delete a&#43;b@x.com</p>')
    expect(render(choice, data('change-email'))).toBe('<p>Change</p>')
    for (const other of ['other', null, undefined])
      expect(render(choice, data(other))).toBe('<p>Sign in</p>')
    expect(render(choice)).toBe('<p>Sign in</p>')
    expect(render('{{ if eq .Data.a "x" }}y{{ end }}z')).toBe('z')
  })

  it("fails the mail on a value that is not a string, as Go's eq does", () => {
    expect(() => render(choice, { Data: { code_for: 1 } })).toThrow(
      'error calling eq: incompatible types for comparison',
    )
  })
})

describe('what it refuses, naming the template and the construct', () => {
  it.each([
    ['{{ if .Email }}x{{ end }}', '"{{ if .Email }}"'],
    ['{{ if .Data.a }}x{{ end }}', '"{{ if .Data.a }}"'],
    ['{{ if eq .Email "a" }}x{{ end }}', '"{{ if eq .Email "a" }}"'],
    ['{{ if eq .Data.a "b" "c" }}x{{ end }}', '"{{ if eq .Data.a "b" "c" }}"'],
    ['{{ if ne .Data.a "b" }}x{{ end }}', '"{{ if ne .Data.a "b" }}"'],
    ['<a title="{{ if eq .Data.a "b" }}x{{ end }}">', '"{{ if eq .Data.a "b" }}" outside text'],
    ['x{{ end }}', '"{{ end }}" out of place'],
    ['{{ if eq .Data.a "b" }}x{{ else }}y{{ else }}z{{ end }}', '"{{ else }}" out of place'],
    ['{{ if eq .Data.a "b" }}x', 'an if without its end'],
    ['{{ .Data.name }}', '"{{ .Data.name }}"'],
    ['{{ . }}', '"{{ . }}"'],
    ['{{ .Data }}', '"{{ .Data }}"'],
    ['{{ .Email | urlquery }}', '"{{ .Email | urlquery }}"'],
    ['{{- .Email }}', '"{{- .Email }}"'],
    ['{{/* a comment */}}', '"{{/* a comment */}}"'],
    ['<p>{{ .Email </p>', '"{{ .Email </p>", an unclosed action'],
    ['<script>var e = "{{ .Email }}"</script>', '"{{ .Email }}" inside <script>'],
    ['<title>{{ .Email }}</title>', '"{{ .Email }}" inside <title>'],
    ['<a onclick="f({{ .Email }})">x</a>', '"{{ .Email }}" in an attribute other than a URL'],
    ['<td title={{ .Email }}>x</td>', '"{{ .Email }}" in an unquoted attribute value'],
    ['<a {{ .Email }}>x</a>', '"{{ .Email }}" inside a tag'],
    ['<td title="{{ .Email }}">x</td>', '"{{ .Email }}" in an attribute other than a URL'],
    ['<a href="/x/{{ .Email }}">x</a>', `"{{ .Email }}" in a URL's path`],
    ['<a href="{{ .SiteURL }}{{ .Email }}">x</a>', `"{{ .Email }}" in a URL's path`],
    ['<p>a<!-- note -->b</p>', 'an HTML comment'],
    ['<a href="{{ .SiteURL }}', 'an unclosed tag or attribute at its end'],
  ])('%s', (source, construct) => {
    expect(() => compileTemplate(source, 'supabase/templates/t.html')).toThrow(
      `the mail template supabase/templates/t.html uses ${construct}: the local stack renders only {{ .Field }} in text and URL attributes, and {{ if eq .Data.key "word" }} in text`,
    )
  })
})
