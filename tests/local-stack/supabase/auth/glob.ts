/**
 * The glob syntax of github.com/gobwas/glob, which the auth server compiles each redirect
 * allow-list entry with (`glob.MustCompile(uri, '.', '/')`, internal/conf/configuration.go):
 *
 * - `*` any run of characters that are not separators (`.` and `/` here), `**` any run at all;
 * - `?` one character that is not a separator;
 * - `[abc]`, `[a-z]` one character of a list or range (separators included), `[!…]` not;
 * - `{a,b}` one of the alternatives (each a glob itself);
 * - `\` makes the next character literal; everything else is literal.
 *
 * The whole string must match. Compiled once to a RegExp (the `u` flag: characters, not bytes).
 */

export class GlobSyntaxError extends Error {}

/** A literal character outside a character class (the `u` flag refuses needless escapes). */
function escapeRegExp(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}

/** A literal character inside a character class. */
function escapeClass(text: string) {
  return text.replace(/[[\]\\^-]/g, '\\$&')
}

export function compileGlob(pattern: string, separators: string[] = ['.', '/']) {
  const notSeparator = `[^${separators.map(escapeClass).join('')}]`
  const chars = [...pattern]
  let i = 0
  let depth = 0

  function parseRange(): string {
    // after '['
    let negate = false
    if (chars[i] === '!') {
      negate = true
      i++
    }
    if (i >= chars.length) throw new GlobSyntaxError('unexpected end of input')
    if (chars[i + 1] === '-' && chars[i] !== ']') {
      const lo = chars[i]
      const hi = chars[i + 2]
      if (hi === undefined) throw new GlobSyntaxError('unexpected end of input')
      if (chars[i + 3] !== ']') throw new GlobSyntaxError('expected close range character')
      i += 4
      return `[${negate ? '^' : ''}${escapeClass(lo)}-${escapeClass(hi)}]`
    }
    let list = ''
    while (i < chars.length && chars[i] !== ']') {
      if (chars[i] === '\\' && i + 1 < chars.length) i++
      list += chars[i]
      i++
    }
    if (i >= chars.length) throw new GlobSyntaxError('unexpected end of input')
    i++ // ']'
    if (list === '') throw new GlobSyntaxError('empty character list')
    return `[${negate ? '^' : ''}${[...list].map(escapeClass).join('')}]`
  }

  function parseSequence(): string {
    let source = ''
    while (i < chars.length) {
      const char = chars[i]
      if (depth > 0 && (char === ',' || char === '}')) return source
      i++
      if (char === '\\') {
        if (i < chars.length) source += escapeRegExp(chars[i++])
      } else if (char === '*') {
        if (chars[i] === '*') {
          i++
          source += '[\\s\\S]*'
        } else source += `${notSeparator}*`
      } else if (char === '?') source += notSeparator
      else if (char === '[') source += parseRange()
      else if (char === '{') {
        depth++
        const alternatives = [parseSequence()]
        while (chars[i] === ',') {
          i++
          alternatives.push(parseSequence())
        }
        if (chars[i] !== '}') throw new GlobSyntaxError('unexpected end of input')
        i++
        depth--
        source += `(?:${alternatives.join('|')})`
      } else source += escapeRegExp(char)
    }
    return source
  }

  const source = parseSequence()
  const regexp = new RegExp(`^${source}$`, 'u')
  return { match: (value: string) => regexp.test(value) }
}
