import net from 'node:net'

/** Raw HTTP/1.1 over a socket: what fetch would hide (a 413 before the body is read, a reset). */

export type RawResponse = { status: number; headers: Record<string, string>; body: string }
type Outcome = RawResponse | 'end' | 'reset' | 'timeout'

/** One response from the front of `buffer` (Content-Length or chunked), or null if incomplete. */
function parseResponse(buffer: Buffer): { response: RawResponse; rest: Buffer } | null {
  const headEnd = buffer.indexOf('\r\n\r\n')
  if (headEnd < 0) return null
  const [statusLine, ...lines] = buffer.subarray(0, headEnd).toString('latin1').split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  const status = Number(statusLine.split(' ')[1])
  let offset = headEnd + 4
  if (headers['transfer-encoding']?.includes('chunked')) {
    const parts: Buffer[] = []
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', offset)
      if (lineEnd < 0) return null
      const size = parseInt(buffer.subarray(offset, lineEnd).toString('latin1'), 16)
      if (buffer.length < lineEnd + 2 + size + 2) return null
      parts.push(buffer.subarray(lineEnd + 2, lineEnd + 2 + size))
      offset = lineEnd + 2 + size + 2
      if (size === 0) break
    }
    const body = Buffer.concat(parts).toString('utf8')
    return { response: { status, headers, body }, rest: buffer.subarray(offset) }
  }
  const length = Number(headers['content-length'] ?? 0)
  if (buffer.length < offset + length) return null
  const body = buffer.subarray(offset, offset + length).toString('utf8')
  return { response: { status, headers, body }, rest: buffer.subarray(offset + length) }
}

/** A kept-alive client connection over a raw socket, from a chosen loopback address. */
export async function connect(localAddress: string, port: number) {
  const socket = net.connect({ port, host: '127.0.0.1', localAddress })
  let buffer: Buffer = Buffer.alloc(0)
  let closed: 'end' | 'reset' | null = null
  let wake = () => {}
  socket.on('data', (data) => {
    buffer = Buffer.concat([buffer, data])
    wake()
  })
  socket.on('end', () => {
    closed ??= 'end'
    wake()
  })
  socket.on('error', () => {
    closed ??= 'reset'
    wake()
  })
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve)
    socket.once('error', reject)
  })
  return {
    get closed() {
      return closed
    },
    write(data: string | Buffer) {
      if (closed || socket.destroyed) return Promise.resolve(false)
      return new Promise<boolean>((resolve) => socket.write(data, (error) => resolve(!error)))
    },
    next(timeoutMs = 2_000): Promise<Outcome> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish('timeout'), timeoutMs)
        const finish = (outcome: Outcome) => {
          clearTimeout(timer)
          wake = () => {}
          resolve(outcome)
        }
        wake = () => {
          const parsed = parseResponse(buffer)
          if (parsed) {
            buffer = parsed.rest
            finish(parsed.response)
          } else if (closed) finish(closed)
        }
        wake()
      })
    },
    close: () => socket.destroy(),
  }
}

export type Connection = Awaited<ReturnType<typeof connect>>
