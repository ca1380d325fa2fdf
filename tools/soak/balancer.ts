/**
 * The round-robin balancer in front of two production instances (the chaos soak's and the
 * mixed bench's set-up): each request goes to the next routable instance; a refused connection
 * (nothing reached the instance) tries the other once, as nginx's `proxy_next_upstream` does;
 * any other failure is a 502 marked `x-chaos-cause: backend`.
 */
import http from 'node:http'

export interface Backend {
  index: number
  port: number
  /** false while killed, stopping or starting: the balancer sends nothing new to it. */
  routable: boolean
  inFlight: number
}

/**
 * Listens on `port` (loopback). The instances see the balancer as their one trusted proxy
 * (TRUSTED_PROXY_COUNT=1): `x-forwarded-for` is the client's address, 127.0.0.1 unless
 * `clientAddress` reads another (the mixed bench's clients name theirs in the header).
 */
export function startBalancer(
  port: number,
  backends: Backend[],
  clientAddress: (req: http.IncomingMessage) => string = () => '127.0.0.1',
) {
  let next = 0
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const order = backends.filter((backend) => backend.routable)
      if (order.length === 0) order.push(...backends)
      const first = next++ % order.length
      const tries = [order[first], ...order.filter((_, i) => i !== first)].slice(0, 2)
      const attempt = (n: number) => {
        const backend = tries[n]
        backend.inFlight += 1
        let done = false
        const finish = () => {
          if (!done) backend.inFlight -= 1
          done = true
        }
        const upstream = http.request(
          {
            host: '127.0.0.1',
            port: backend.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, 'x-forwarded-for': clientAddress(req) },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, {
              ...answer.headers,
              'x-chaos-instance': String(backend.index),
            })
            answer.pipe(res)
            answer.on('end', finish)
            answer.on('error', finish)
          },
        )
        upstream.on('error', (error: NodeJS.ErrnoException) => {
          finish()
          if (error.code === 'ECONNREFUSED' && n + 1 < tries.length) return attempt(n + 1)
          if (!res.headersSent) {
            res.writeHead(502, { 'content-type': 'application/json', 'x-chaos-cause': 'backend' })
            res.end(JSON.stringify({ error: `bad gateway: ${error.code ?? error.message}` }))
          } else res.destroy()
        })
        upstream.end(body)
      }
      attempt(0)
    })
  })
  return new Promise<http.Server>((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve(server)),
  )
}
