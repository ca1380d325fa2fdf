import { type ReactNode, useEffect, useState } from 'react'

/** A link or one-button POST form out of the app; its pending state clears on a bfcache return. */
export function LeavingDoor({
  door,
  className,
  children,
  pendingText,
}: {
  door: { href: string } | { post: string; fields: Record<string, string> }
  className: string
  children: ReactNode
  pendingText: string
}) {
  const [leaving, setLeaving] = useState(false)
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (event.persisted) setLeaving(false)
    }
    window.addEventListener('pageshow', reset)
    return () => window.removeEventListener('pageshow', reset)
  }, [])
  const label = leaving ? pendingText : children
  const leave = () => setLeaving(true)
  if ('href' in door) {
    return (
      <a href={door.href} className={className} onClick={leave} aria-busy={leaving}>
        {label}
      </a>
    )
  }
  return (
    <form
      method="post"
      action={door.post}
      // A second click while the first is on its way would start a second checkout.
      onSubmit={(event) => (leaving ? event.preventDefault() : leave())}
    >
      {Object.entries(door.fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <button type="submit" className={className} aria-disabled={leaving}>
        {label}
      </button>
    </form>
  )
}
