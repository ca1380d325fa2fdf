/**
 * The allow-list's globs as the auth server compiles them (gobwas/glob with `.` and `/` as
 * separators), for the `*` and `**` the project uses; other syntax is refused at start.
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
