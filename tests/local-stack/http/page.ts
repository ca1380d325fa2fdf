import { escapeHtml } from './respond'

const styles = `
  body { font-family: system-ui, sans-serif; margin: 0; background: #f6f9fc; color: #1a1f36; }
  main { max-width: 40rem; margin: 2rem auto; background: #fff; padding: 2rem; border-radius: 8px;
    box-shadow: 0 2px 8px rgba(0,0,0,.08); }
  main.wide { max-width: 72rem; }
  .banner { background: #fff4e5; color: #7a4b00; padding: .5rem 1rem; font-size: .875rem; text-align: center; }
  label { display: block; margin-top: 1rem; font-weight: 600; font-size: .875rem; }
  input, select, textarea { display: block; width: 100%; box-sizing: border-box; padding: .5rem;
    margin-top: .25rem; font: inherit; border: 1px solid #c1c9d2; border-radius: 4px; }
  button { margin-top: 1rem; padding: .6rem 1.2rem; font: inherit; font-weight: 600; border: 0;
    border-radius: 4px; background: #635bff; color: #fff; cursor: pointer; }
  button.secondary { background: #e3e8ee; color: #1a1f36; }
  button.danger { background: #df1b41; }
  [role=alert] { background: #fde8ec; color: #a41c33; padding: .75rem; border-radius: 4px; margin-top: 1rem; }
  [role=status] { background: #e6f6ec; color: #0e6245; padding: .75rem; border-radius: 4px; margin-top: 1rem; }
  table { border-collapse: collapse; width: 100%; font-size: .85rem; }
  th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid #e3e8ee; vertical-align: top; }
  pre { white-space: pre-wrap; word-break: break-all; margin: 0; max-height: 8rem; overflow: auto; }
  .amount { font-size: 2rem; font-weight: 700; }
  .muted { color: #697386; }
  form.inline { display: inline; }
  section { border-top: 1px solid #e3e8ee; margin-top: 1.5rem; padding-top: 1rem; }
`

/** A complete page under the stand-in's banner; `body` and `banner` must already be escaped. */
export function page(
  title: string,
  banner: string,
  body: string,
  options: { wide?: boolean } = {},
) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${styles}</style>
</head>
<body>
<p class="banner">${banner}</p>
<main${options.wide ? ' class="wide"' : ''}>
${body}
</main>
</body>
</html>`
}

/** Formats minor units, e.g. 2900 usd → "$29.00". */
export function money(amount: number, currency: string) {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amount / 100)
}

export function button(action: string, label: string, fields: Record<string, string> = {}) {
  const inputs = Object.entries(fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('')
  return `<form method="post" action="${escapeHtml(action)}" class="inline">${inputs}<button type="submit" class="secondary">${escapeHtml(label)}</button></form>`
}

/** A table of already-escaped cells, or one row saying `empty`. */
export function table(headings: string[], rows: string[][], empty: string) {
  const body = rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`)
  const none = `<tr><td colspan="${headings.length}">${escapeHtml(empty)}</td></tr>`
  return `<table><thead><tr>${headings.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead>
<tbody>${body.join('\n') || none}</tbody></table>`
}
