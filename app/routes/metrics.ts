import { metricsResponse } from '~/lib/server/metrics.server'

/** Prometheus metrics, behind METRICS_TOKEN (docs/operations.md, "Alerts"). */
export const loader = ({ request }: { request: Request }) => metricsResponse(request)
