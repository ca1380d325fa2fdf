import { logger } from '~/lib/server/logger.server'

/**
 * Sign-up and email change must answer the same, in words and in time, whether or not an
 * address has an account; the auth server's work differs between the two, so it runs after the
 * answer. The queue is in this process only: a sign-up's job holds the new password, which is
 * never written anywhere (if the process stops first, no mail is sent; the page says to sign up
 * again then). A failure is logged, never shown (it would tell the two branches apart).
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

/** For tests. */
export async function mailRequestsSettled() {
  while (running.size > 0) await Promise.all([...running])
}
