import { logger } from '~/lib/server/logger.server'

// After the answer, in this process; a failure is logged, never shown (it would tell apart).
const running = new Set<Promise<unknown>>()

export function afterAnswer(name: string, work: () => Promise<unknown>) {
  const job: Promise<unknown> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((error: unknown) => {
      logger.error({ name, err: error }, 'auth mail request failed')
    })
    .finally(() => running.delete(job))
  running.add(job)
}

/** Resolves once no job is left, those queued meanwhile too (the graceful stop, tests). */
export async function mailRequestsSettled() {
  while (running.size > 0) await Promise.all([...running])
}
