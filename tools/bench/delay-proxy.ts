// A TCP proxy that puts a network distance between two local processes: every chunk held half
// the RTT each way, a new connection's first byte one RTT (a handshake); `setRtt` between requests.
import net from 'node:net'

function delayedPipe(source: net.Socket, destination: net.Socket, dueAfter: () => number) {
  const queue: { due: number; chunk: Buffer }[] = []
  let timer: NodeJS.Timeout | undefined
  let ended = false
  const flush = () => {
    timer = undefined
    const now = Date.now()
    while (queue.length > 0 && queue[0].due <= now) destination.write(queue.shift()!.chunk)
    if (queue.length > 0) timer = setTimeout(flush, queue[0].due - now)
    else if (ended) destination.end()
  }
  source.on('data', (chunk: Buffer) => {
    queue.push({ due: Date.now() + dueAfter(), chunk })
    if (!timer) timer = setTimeout(flush, Math.max(0, queue[0].due - Date.now()))
  })
  source.on('end', () => {
    ended = true
    if (!timer) flush()
  })
}

export async function startDelayProxy(target: string) {
  const { hostname, port } = new URL(target)
  let rtt = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const openedAt = Date.now()
    const handshake = rtt
    const upstream = net.connect({ host: hostname, port: Number(port) })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.setNoDelay(true)
      socket.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
      socket.on('close', () => sockets.delete(socket))
    }
    // Client to server: after the handshake, half a round trip; back: half a round trip.
    delayedPipe(client, upstream, () =>
      Math.max(rtt / 2, openedAt + handshake - Date.now() + rtt / 2),
    )
    delayedPipe(upstream, client, () => rtt / 2)
  })
  await new Promise<void>((resolve) => server.listen(0, hostname, resolve))
  const address = server.address() as net.AddressInfo
  return {
    url: `http://${hostname}:${address.port}`,
    setRtt: (ms: number) => {
      rtt = ms
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
