import type { ActionFunctionArgs } from '@remix-run/node'

// The floor of the webhook rows: Remix's cost per post, before any signature, parse or query.
export const action = async ({ request }: ActionFunctionArgs) => {
  await request.text()
  return Response.json({ received: true })
}
