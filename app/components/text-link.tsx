import { Link, type LinkProps } from '@remix-run/react'

/** A link in running text or under a form: brand-coloured, underlined on hover. */
export function TextLink(props: Omit<LinkProps, 'className'>) {
  return <Link {...props} className="font-semibold text-brand-700 hover:underline" />
}
