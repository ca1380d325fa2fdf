/** The resource route: a short text, nothing else (the floor for the app's `/healthz?live`). */
export const loader = () =>
  new Response('ok', { headers: { 'Content-Type': 'text/plain; charset=utf-8' } })
