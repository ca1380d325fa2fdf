export interface Route<H> {
  method: string
  pattern: RegExp
  handler: H
  path: string
}

export interface RouteMatch<H> {
  handler: H
  /** Named `:segments` (and `rest` for a trailing `*`), URL-decoded. */
  params: Record<string, string>
  /** Every capture in order, URL-decoded (for patterns given as regular expressions). */
  values: string[]
}

/**
 * `/a/:id/b` → a pattern: `:name` is one segment (a named param), a trailing `*` the rest of
 * the path (`rest`), anything else literal. A RegExp is used as it is.
 */
export function compilePath(path: string | RegExp): RegExp {
  if (path instanceof RegExp) return path
  const source = path
    .split('/')
    .map((part) => {
      if (part === '*') return '(?<rest>.*)'
      if (part.startsWith(':')) return `(?<${part.slice(1)}>[^/]+)`
      return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return new RegExp(`^${source}$`)
}

export function route<H>(method: string, path: string | RegExp, handler: H): Route<H> {
  return { method, pattern: compilePath(path), handler, path: String(path) }
}

export interface MatchOptions {
  headAsGet?: boolean
}

/**
 * The first route for this method and path; `pathMatched` says whether any route (of any
 * method) has this path, for a 405.
 */
export function matchRoute<H>(
  routes: readonly Route<H>[],
  method: string,
  path: string,
  options: MatchOptions = {},
): { found?: RouteMatch<H>; pathMatched: boolean } {
  let pathMatched = false
  for (const candidate of routes) {
    const match = candidate.pattern.exec(path)
    if (!match) continue
    pathMatched = true
    const methodOk =
      candidate.method === method ||
      (options.headAsGet === true && method === 'HEAD' && candidate.method === 'GET')
    if (!methodOk) continue
    const params: Record<string, string> = {}
    for (const [key, value] of Object.entries(match.groups ?? {}))
      params[key] = decodeURIComponent(value ?? '')
    const values = match.slice(1).map((value) => decodeURIComponent(value ?? ''))
    return { found: { handler: candidate.handler, params, values }, pathMatched }
  }
  return { pathMatched }
}

export class RouteTable<H> {
  readonly routes: Route<H>[] = []

  constructor(private readonly options: MatchOptions = {}) {}

  on(method: string, path: string | RegExp, handler: H) {
    this.routes.push(route(method, path, handler))
    return this
  }

  match(method: string, path: string) {
    return matchRoute(this.routes, method, path, this.options)
  }

  describe() {
    return this.routes.map((candidate) => `${candidate.method} ${candidate.path}`)
  }
}
