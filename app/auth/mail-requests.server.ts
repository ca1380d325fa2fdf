import { logger } from '~/lib/server/logger.server'

/**
 * Sign-up and email change answer the same, in words and time, whether or not the address has
 * an account, so the auth server's work runs after the answer, in this process only (a job holds
 * a new password, never written anywhere). A failure is logged, never shown (it would tell apart).
 */
const running = new Set<Promise<void>>()

/** Runs `work` on the next turn of the loop, after the current request is answered. */
export function afterAnswer(name: string, work: () => Promise<void>) {
  const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
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
