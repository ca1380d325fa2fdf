import { Link, type LinkProps } from '@remix-run/react'

export const LINK = 'font-semibold text-brand-700 hover:underline'

export function TextLink(props: Omit<LinkProps, 'className'>) {
  return <Link {...props} className={LINK} />
}

const BUTTON =
  'inline-block rounded-md bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700'

export function ButtonLink({ className, ...props }: LinkProps) {
  return <Link {...props} className={className ? `${className} ${BUTTON}` : BUTTON} />
}
