// The spec's path for the Stripe webhook: the same handler as /api/webhooks/stripe.
export { action, loader } from './api.webhooks.stripe'
