import { type ReactNode, useEffect, useState } from 'react'

/** Pending state for leaving the app, cleared when the page comes back from the bfcache. */
function useLeavingPage() {
  const [leaving, setLeaving] = useState(false)
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false)
    }
    window.addEventListener('pageshow', reset)
    return () => window.removeEventListener('pageshow', reset)
  }, [])
  return [leaving, () => setLeaving(true)] as const
}

type Leaving = { className: string; children: ReactNode; pendingText: string }

/** A plain POST form with one submit button that shows it is on its way. */
export function LeavingForm({
  action,
  fields,
  className,
  children,
  pendingText,
}: Leaving & { action: string; fields: Record<string, string> }) {
  const [leaving, leave] = useLeavingPage()
  return (
    <form
      method="post"
      action={action}
      // A second click while the first is on its way would start a second checkout.
      onSubmit={(event) => (leaving ? event.preventDefault() : leave())}
    >
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={className} aria-disabled={leaving}>
        {leaving ? pendingText : children}
      </button>
    </form>
  )
}

/** A link to a page outside the app that shows it is on its way. */
export function LeavingLink({
  href,
  className,
  children,
  pendingText,
}: Leaving & { href: string }) {
  const [leaving, leave] = useLeavingPage()
  return (
    <a href={href} className={className} onClick={leave} aria-busy={leaving}>
      {leaving ? pendingText : children}
    </a>
  )
}
