import type { Database } from '../database'
import { escapeHtml, html, json, type Route, route } from './http'
import { listMail } from './mail'

export function layout(title: string, body: string) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Local Supabase</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 48rem; margin: 2rem auto; padding: 0 1rem; color: #1c1c1c; }
  a { color: #0b6b43; } code { background: #f3f3f3; padding: 0 .25rem; }
  table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .4rem; border-bottom: 1px solid #ddd; }
  article { border: 1px solid #ddd; border-radius: .5rem; padding: .75rem 1rem; margin: 1rem 0; }
  input { font: inherit; padding: .4rem; min-width: 18rem; } button { font: inherit; padding: .4rem 1rem; margin-right: .5rem; }
  [role=alert] { color: #b00020; }
</style>
</head>
<body>
<nav aria-label="Local Supabase"><a href="/_inbox">Inbox</a> · <a href="/_users">Users</a></nav>
<main>
${body}
</main>
</body>
</html>`
}

async function inboxPage(db: Database) {
  const mails = await listMail(db)
  const items = mails
    .map(
      (mail) => `<article aria-labelledby="mail-${mail.id}">
  <h2 id="mail-${mail.id}">${escapeHtml(mail.subject)}</h2>
  <p>To <strong>${escapeHtml(mail.to)}</strong> · <time datetime="${mail.createdAt}">${escapeHtml(mail.createdAt)}</time></p>
  ${mail.html}
</article>`,
    )
    .join('\n')
  return layout(
    'Inbox',
    `<h1>Inbox</h1>
<p>${mails.length} ${mails.length === 1 ? 'message' : 'messages'}, newest first.
JSON: <a href="/_inbox/messages.json">/_inbox/messages.json</a> (filter with <code>?to=</code>).
The page reloads itself when a mail arrives.</p>
${items || '<p>No mail yet.</p>'}
<script>
setInterval(async () => {
  const { messages } = await (await fetch('/_inbox/messages.json')).json()
  if (messages.length !== ${mails.length}) location.reload()
}, 2000)
</script>`,
  )
}

interface UserListRow {
  id: string
  email: string | null
  email_confirmed_at: Date | null
  last_sign_in_at: Date | null
  created_at: Date
  providers: string | null
}

async function usersPage(db: Database) {
  const { rows } = await db.query<UserListRow>(
    `select u.id, u.email, u.email_confirmed_at, u.last_sign_in_at, u.created_at,
       (select string_agg(p, ', ') from jsonb_array_elements_text(coalesce(u.raw_app_meta_data -> 'providers', '[]')) p) as providers
     from auth.users u order by u.created_at desc`,
  )
  const when = (value: Date | null) => (value ? new Date(value).toISOString() : '—')
  const body = rows
    .map(
      (row) =>
        `<tr><td>${escapeHtml(row.email)}</td><td>${row.email_confirmed_at ? 'yes' : 'no'}</td>` +
        `<td>${escapeHtml(row.providers ?? '')}</td><td>${when(row.created_at)}</td><td>${when(row.last_sign_in_at)}</td>` +
        `<td><code>${escapeHtml(row.id)}</code></td></tr>`,
    )
    .join('\n')
  return layout(
    'Users',
    `<h1>Users</h1>
<p>${rows.length} registered.</p>
<table>
<thead><tr><th scope="col">Email</th><th scope="col">Confirmed</th><th scope="col">Providers</th>
<th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">ID</th></tr></thead>
<tbody>${body}</tbody>
</table>`,
  )
}

/** The developer pages: the inbox (HTML and JSON) and registered users. */
export function pageRoutes(db: Database): Route[] {
  return [
    route('GET', '/_inbox', async () => html(await inboxPage(db))),
    route('GET', '/_inbox/messages.json', async (request) => {
      const to = new URL(request.url).searchParams.get('to') ?? undefined
      return json({ messages: await listMail(db, to) })
    }),
    route('GET', '/_users', async () => html(await usersPage(db))),
  ]
}
