/** Escapes text for HTML element content and attribute values. */
export function esc(value: unknown) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/** Minor units to a display amount, e.g. 2900 usd → "$29.00". */
export function money(amount: number, currency: string) {
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: currency.toUpperCase(),
  }).format(amount / 100)
}

export function date(iso: string | null) {
  return iso ? new Date(iso).toISOString().slice(0, 10) : '—'
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#111}
main{max-width:760px;margin:2rem auto;background:#fff;padding:2rem;border-radius:12px;box-shadow:0 1px 3px #0002}
h1{margin-top:0}table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid #e5e7eb;padding:.4rem;text-align:left;vertical-align:top}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}
input,select{padding:.5rem;width:100%;box-sizing:border-box;border:1px solid #ccc;border-radius:6px}
button{padding:.55rem 1rem;border-radius:6px;border:1px solid #0062ff;background:#0062ff;color:#fff;cursor:pointer;margin:.6rem .4rem 0 0}
button.secondary{background:#fff;color:#0062ff}button.danger{background:#fff;color:#b91c1c;border-color:#b91c1c}
[role=alert]{background:#fee2e2;color:#991b1b;padding:.6rem;border-radius:6px}
[role=status]{background:#dcfce7;color:#14532d;padding:.6rem;border-radius:6px}
.muted{color:#6b7280;font-size:.85rem}pre{white-space:pre-wrap;word-break:break-all;font-size:.75rem;max-height:8rem;overflow:auto}
form.inline{display:inline}`

/** A complete HTML page with the emulator's banner. */
export function page(title: string, body: string) {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)}</title><style>${STYLE}</style></head><body><main>
<p class="muted">Polar (local emulator) · <a href="/">home</a></p>${body}</main></body></html>`
}

export function notFoundPage(what: string) {
  return page('Not found', `<h1>Not found</h1><p role="alert">${esc(what)}</p>`)
}
