import { useLocation } from '@remix-run/react'
import type { ReactNode } from 'react'

/**
 * `items` in a row (`barClass`) from the `sm` width up; below it, behind one "Menu" button: a
 * <details> disclosure, which opens without JavaScript. Keyed by the path, so it is closed
 * again after a client-side navigation.
 */
export function CompactMenu(props: { label: string; items: ReactNode; barClass: string }) {
  const { pathname } = useLocation()
  return (
    <>
      <details key={pathname} className="relative sm:hidden">
        <summary className="cursor-pointer rounded-md border border-slate-300 px-3 py-2 text-sm font-medium text-slate-800">
          {props.label}
        </summary>
        <div className="absolute right-0 z-10 mt-2 flex w-56 flex-col gap-1 rounded-md border border-slate-200 bg-white p-2 shadow-lg">
          {props.items}
        </div>
      </details>
      <div className={`hidden sm:flex ${props.barClass}`}>{props.items}</div>
    </>
  )
}
