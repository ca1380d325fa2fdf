import { Link, type LinkProps } from '@remix-run/react'

export const LINK = 'font-semibold text-brand-700 hover:underline'

export function TextLink(props: Omit<LinkProps, 'className'>) {
  return <Link {...props} className={LINK} />
}

export const BLOCK_BUTTON =
  'block w-full rounded-md bg-brand-600 px-4 py-2 text-center text-sm font-semibold text-white hover:bg-brand-700 aria-disabled:opacity-70'

export const BUTTON = {
  primary: 'bg-brand-600 text-white hover:bg-brand-700',
  secondary: 'border border-slate-300 bg-white text-slate-900 hover:bg-slate-50',
  danger: 'bg-red-700 text-white hover:bg-red-800',
}

export function ButtonLink({
  className,
  variant = 'primary',
  ...props
}: LinkProps & { variant?: keyof typeof BUTTON }) {
  const style = `inline-block rounded-md px-4 py-2 text-sm font-semibold ${BUTTON[variant]}`
  return <Link {...props} className={className ? `${className} ${style}` : style} />
}
