// The spec's path for the Polar webhook: the same handler as /api/webhooks/polar.
export { action, loader } from './api.webhooks.polar'
