/**
 * The redirect allow-list's globs as the auth server compiles them (github.com/gobwas/glob,
 * `glob.MustCompile(uri, '.', '/')`, internal/conf/configuration.go), for what the project's
 * entries use: `*` any run of characters that are not separators (`.` and `/`), `**` any run
 * at all, everything else literal; the whole string must match. gobwas/glob's other syntax
 * (`?`, `[…]`, `{…}`, `\`) is refused with GlobSyntaxError naming it: an entry that needs more
 * fails at start here instead of matching differently from production.
 */

export class GlobSyntaxError extends Error {}

export function compileGlob(pattern: string) {
  const other = /[?[{\\]/.exec(pattern)
  if (other)
    throw new GlobSyntaxError(
      `the redirect allow-list entry ${pattern} uses "${other[0]}": the local stack takes only * and ** in an entry`,
    )
  const source = pattern
    .split(/(\*\*?)/)
    .map((part) => {
      if (part === '**') return '[\\s\\S]*'
      if (part === '*') return '[^./]*'
      return part.replace(/[.+^$}()|\]/]/g, '\\$&')
    })
    .join('')
  const regexp = new RegExp(`^${source}$`, 'u')
  return { match: (value: string) => regexp.test(value) }
}
