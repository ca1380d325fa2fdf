import { logger } from '~/lib/server/logger.server'

/**
 * The calls that decide what mail an address gets, made after the answer: the auth-server
 * calls of sign-up and email change, the owner's notice of a reached guessing ceiling, and
 * the security notices of a changed password or "sign out everywhere" (queued in the outbox:
 * no answer waits for a mail).
 *
 * Sign-up and email change must answer the same whether or not an address has an account,
 * in what they say and in how long they take. The auth server's own work differs between
 * the two (a new account: its password hashed and the confirmation mail sent; an existing
 * one: a sign-in link instead, or nothing), so that work is not done on the request path:
 * the action queues it here and answers at once, and both branches do exactly the same
 * work before the answer. The queue is in this process only, because a sign-up's job holds
 * the password of the new account, which is never written anywhere: if the process stops
 * before a job ran, that request's mail is not sent (the page says to sign up again when
 * no mail arrives). A failure is logged, never shown (it would tell the two branches apart).
 */
const running = new Set<Promise<void>>()

/** Runs `work` after the current request has been answered (the next turn of the loop). */
export function afterAnswer(name: string, work: () => Promise<void>) {
  const job: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((error: unknown) => {
      logger.error({ name, err: error }, 'auth mail request failed')
    })
    .finally(() => running.delete(job))
  running.add(job)
}

/** Resolves once every queued job has finished (for tests). */
export async function mailRequestsSettled() {
  while (running.size > 0) await Promise.all([...running])
}
