import { describe, expect, it } from 'vitest'

import { compileTemplate, type MailData } from './auth/go-template'

// The renderer against what Go's html/template produces for the same template and data, and its
// refusal of everything the project's templates do not use (which tests/config/supabase-config
// .test.ts renders, its links followed).
const render = (source: string, data: MailData = {}) =>
  compileTemplate(source, 't.html').render(data)

const choice =
  '<p>{{ if eq .Data.code_for "delete-account" }}Delete {{ .Email }}{{ else if eq .Data.code_for "change-email" }}Change{{ else }}Sign in{{ end }}</p>'
const codeFor = (code_for: unknown) => ({ Email: 'a+b@x.com', Data: { code_for } })

describe('html/template escaping, and if eq on the user metadata', () => {
  it.each<[string, MailData, string]>([
    [
      '<p>{{.Email}}</p>',
      { Email: `a+b@x.com <"it's">&` },
      '<p>a&#43;b@x.com &lt;&#34;it&#39;s&#34;&gt;&amp;</p>',
    ],
    [
      '<a href="{{ .RedirectTo }}">x</a>',
      { RedirectTo: 'http://localhost:5173/auth/callback?next=%2Fdashboard&a=b c%' },
      '<a href="http://localhost:5173/auth/callback?next=%2Fdashboard&amp;a=b%20c%25">x</a>',
    ],
    [
      '<a href="{{ .RedirectTo }}">x</a>',
      { RedirectTo: 'javascript:alert(1)' },
      '<a href="#ZgotmplZ">x</a>',
    ],
    [
      '<a href="/x?e={{ .Email }}">x</a>',
      { Email: 'zoë@x.com' },
      '<a href="/x?e=zo%c3%ab%40x.com">x</a>',
    ],
    ['<title>T</title><p>[{{ .NewEmail }}]</p>', {}, '<title>T</title><p>[]</p>'],
    [choice, codeFor('delete-account'), '<p>Delete a&#43;b@x.com</p>'],
    [choice, codeFor('change-email'), '<p>Change</p>'],
    [choice, codeFor('other'), '<p>Sign in</p>'],
    [choice, codeFor(null), '<p>Sign in</p>'],
    [choice, {}, '<p>Sign in</p>'],
    ['{{ if eq .Data.a "x" }}y{{ end }}z', {}, 'z'],
  ])('%s', (source, data, expected) => {
    expect(render(source, data)).toBe(expected)
  })

  it("fails the mail on a value that is not a string, as Go's eq does", () => {
    expect(() => render(choice, codeFor(1))).toThrow(
      'error calling eq: incompatible types for comparison',
    )
  })
})

describe('what it refuses, naming the template and the construct', () => {
  it.each([
    ['{{ if .Email }}x{{ end }}', '"{{ if .Email }}"'],
    ['{{ if eq .Email "a" }}x{{ end }}', '"{{ if eq .Email "a" }}"'],
    ['{{ if ne .Data.a "b" }}x{{ end }}', '"{{ if ne .Data.a "b" }}"'],
    ['<a title="{{ if eq .Data.a "b" }}x{{ end }}">', '"{{ if eq .Data.a "b" }}" outside text'],
    ['x{{ end }}', '"{{ end }}" out of place'],
    ['{{ if eq .Data.a "b" }}x{{ else }}y{{ else }}z{{ end }}', '"{{ else }}" out of place'],
    [
      '{{ if eq .Data.a "b" }}{{ if eq .Data.c "d" }}{{ end }}',
      '"{{ if eq .Data.c "d" }}" inside an if',
    ],
    ['{{ if eq .Data.a "b" }}x', 'an if without its end'],
    ['{{ .Data.name }}', '"{{ .Data.name }}"'],
    ['{{ .Email | urlquery }}', '"{{ .Email | urlquery }}"'],
    ['{{- .Email }}', '"{{- .Email }}"'],
    ['<p>{{ .Email </p>', '"{{ .Email </p>", an unclosed action'],
    ['<script>var e = "{{ .Email }}"</script>', '"{{ .Email }}" inside <script>'],
    ['<title>{{ .Email }}</title>', '"{{ .Email }}" inside <title>'],
    ['<a onclick="f({{ .Email }})">x</a>', '"{{ .Email }}" in an attribute other than href'],
    ['<td title={{ .Email }}>x</td>', '"{{ .Email }}" inside a tag'],
    ['<a {{ .Email }}>x</a>', '"{{ .Email }}" inside a tag'],
    ['<a href="/x/{{ .Email }}">x</a>', `"{{ .Email }}" in a URL's path`],
    ['<a href="{{ .SiteURL }}{{ .Email }}">x</a>', `"{{ .Email }}" in a URL's path`],
    ['<p>a<!-- note -->b</p>', 'an HTML comment'],
    ['<a href="{{ .SiteURL }}', 'an unclosed tag or attribute at its end'],
  ])('%s', (source, construct) => {
    expect(() => compileTemplate(source, 'supabase/templates/t.html')).toThrow(
      `the mail template supabase/templates/t.html uses ${construct}: the local stack renders only {{ .Field }} in text and href, and {{ if eq .Data.key "word" }} in text`,
    )
  })
})
