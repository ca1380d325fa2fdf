import { restError } from './errors'

/** PostgREST's pool settings (`db-pool`, `db-pool-acquisition-timeout`; its defaults). */
export interface RestPoolOptions {
  /** `db-pool`: connections, each request's transaction holds one. Default 10. */
  size?: number
  /** `db-pool-acquisition-timeout`, in ms: how long a request waits for one. Default 10 s. */
  acquisitionTimeoutMs?: number
}

/** PostgREST's pool: `size` at once, the others in order; waiting too long is 504 `PGRST003`. */
export function createRestPool({ size = 10, acquisitionTimeoutMs = 10_000 }: RestPoolOptions = {}) {
  let free = size
  const waiting: (() => void)[] = []
  const acquire = () =>
    new Promise<void>((resolve, reject) => {
      if (free > 0) {
        free -= 1
        return resolve()
      }
      const grant = () => {
        clearTimeout(timer)
        resolve()
      }
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(grant), 1)
        reject(restError(504, 'PGRST003', 'Timed out acquiring connection from connection pool.'))
      }, acquisitionTimeoutMs)
      waiting.push(grant)
    })
  const release = () => {
    const next = waiting.shift()
    if (next) next()
    else free += 1
  }
  return {
    /** Runs fn holding one of the pool's connections. */
    async use<T>(fn: () => Promise<T>): Promise<T> {
      await acquire()
      try {
        return await fn()
      } finally {
        release()
      }
    },
    /** Connections in use and requests waiting for one, now. */
    state: () => ({ inUse: size - free, waiting: waiting.length }),
  }
}

export type RestPool = ReturnType<typeof createRestPool>
