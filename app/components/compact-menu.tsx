import { useLocation } from '@remix-run/react'
import { type ReactNode, useEffect, useRef } from 'react'

/**
 * `items` in a row (`barClass`) from the `sm` width up; below it, behind one button naming the
 * menu and the `current` page: a <details> disclosure, which opens without JavaScript. Keyed by
 * the path, so it is closed again after a client-side navigation, and by a click outside it.
 */
export function CompactMenu(props: {
  label: string
  current?: string
  items: ReactNode
  barClass: string
}) {
  const { pathname } = useLocation()
  const menu = useRef<HTMLDetailsElement>(null)
  useEffect(() => {
    const close = ({ target }: MouseEvent) => {
      if (menu.current && !menu.current.contains(target as Node)) menu.current.open = false
    }
    document.addEventListener('click', close)
    return () => document.removeEventListener('click', close)
  }, [])
  return (
    <>
      <details ref={menu} key={pathname} className="relative sm:hidden">
        <summary className="cursor-pointer rounded-md border border-slate-300 px-3 py-2 text-sm font-medium text-slate-800">
          {props.label}
          {props.current ? `: ${props.current}` : null}
        </summary>
        <div className="absolute right-0 z-10 mt-2 flex w-56 flex-col gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg">
          {props.items}
        </div>
      </details>
      <div className={`hidden sm:flex ${props.barClass}`}>{props.items}</div>
    </>
  )
}
