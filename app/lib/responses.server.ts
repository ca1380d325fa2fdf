/** A JSON response that is never cached (API answers carry per-user or one-time data). */
export function jsonNoStore(body: unknown, init: ResponseInit & { headers?: HeadersInit } = {}) {
  const headers = new Headers(init.headers)
  headers.set('Cache-Control', 'no-store')
  return Response.json(body, { ...init, headers })
}

/** 405 for a method a resource route does not serve, with the Allow header. */
export function methodNotAllowed(allow: string, body: unknown = { error: 'Method not allowed' }) {
  return jsonNoStore(body, { status: 405, headers: { Allow: allow } })
}
