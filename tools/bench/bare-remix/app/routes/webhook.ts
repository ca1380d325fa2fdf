import type { ActionFunctionArgs } from '@remix-run/node'

/**
 * A resource route that takes a post: reads the body as text and answers a short JSON, nothing
 * else. The floor for the app's webhook rows: what Remix costs per post of a webhook's size
 * before any signature check, parse or database call.
 */
export const action = async ({ request }: ActionFunctionArgs) => {
  await request.text()
  return Response.json({ received: true })
}
