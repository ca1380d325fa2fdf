import { refuseApiPost, requireApiUser } from '~/auth/api-session.server'
import type { AsUser } from '~/lib/database/database.server'
import { noticeByKey } from '~/lib/pages/notices'
import { forBrowsers, PORTAL_PAGES } from '~/lib/server/browser-fallback.server'
import { httpStatusOf, jsonNoStore } from '~/lib/server/http.server'
import { logger } from '~/lib/server/logger.server'
import { readOwnSubscription } from '~/subscriptions/billing-overview.server'
import { isLiveStatus } from '~/subscriptions/status'
import { applyProviderAnswer } from '~/subscriptions/store.server'

import { billingProvider, providerCallRefusal, providerRoute } from './registry.server'

/** A provider's portal endpoint of the contract (POST /api/customer_portal, GET /api/portal). */
export function portalEndpoint(
  id: string,
  answers: { post?: boolean; noSubscription: 404 | 500; failed: string },
) {
  const open = async ({ request }: { request: Request }) => {
    const refused = answers.post ? refuseApiPost(request) : null
    if (refused) return refused
    // A portal can cancel the subscription and change the card: the auth server confirms.
    const session = await requireApiUser(request, { confirm: true })
    if (session instanceof Response) return session
    const { user, asUser, headers } = session
    const limited = await providerCallRefusal(request, user.id, headers)
    if (limited) return jsonNoStore({ error: limited.error }, limited.init)
    try {
      const row = await readOwnSubscription(asUser)
      const outcome = row && (await billingProvider(id)!.openPortal(row, user.id, {}))
      if (outcome?.kind !== 'url') {
        const status = answers.noSubscription
        return jsonNoStore({ error: 'No subscription found' }, { status, headers })
      }
      return jsonNoStore({ url: outcome.url }, { status: 200, headers })
    } catch (error) {
      logger.error({ err: error, user: user.id, provider: id }, 'portal failed')
      return jsonNoStore({ error: answers.failed }, { status: 500, headers })
    }
  }
  return providerRoute(id, forBrowsers(PORTAL_PAGES, open))
}

/** The row is read once, here; `paymentMethod` opens the card form where the provider can. */
export async function openBillingPortal(
  asUser: AsUser,
  userId: string,
  options: { paymentMethod?: boolean } = {},
): Promise<{ url: string } | { error: string }> {
  try {
    const row = await readOwnSubscription(asUser)
    const provider = billingProvider(row?.provider)
    const outcome = row && provider ? await provider.openPortal(row, userId, options) : null
    if (outcome?.kind === 'url') return outcome
    return {
      error: 'We could not find a subscription to manage. Choose a plan on the pricing page.',
    }
  } catch (error) {
    logger.error({ err: error, user: userId }, 'billing portal failed')
    return { error: noticeByKey('portal-failed').text }
  }
}

type Change = 'cancel' | 'resume' | 'pay'

/** Cancel at period end, resume, or pay the open invoice; the provider's answer is applied now. */
export async function changeSubscription(asUser: AsUser, userId: string, intent: Change) {
  try {
    const row = await readOwnSubscription(asUser)
    const provider = billingProvider(row?.provider)
    const id = provider && (row as Record<string, unknown>)[`${provider.id}_subscription_id`]
    if (typeof id !== 'string' || !isLiveStatus(row?.status)) return 'You have no plan to change.'
    if (intent === 'pay' && (row!.status !== 'past_due' || !provider!.payOpenInvoice))
      return 'There is no payment due.'
    if (intent !== 'pay' && row!.cancel_at_period_end === (intent === 'cancel')) return null
    const answer = await (intent === 'pay'
      ? provider!.payOpenInvoice!(id)
      : provider!.scheduleCancel(id, intent === 'cancel'))
    await applyProviderAnswer(provider!.id, intent, userId, answer)
    return null
  } catch (error) {
    if (httpStatusOf(error) === 402)
      return 'Your card was declined and nothing was charged. Update your payment method, then pay again.'
    logger.error({ err: error, user: userId, intent }, 'subscription change failed')
    return 'We could not reach the payment provider. Nothing has changed; please try again in a moment.'
  }
}
