import type { MetaFunction } from '@remix-run/node'

import { ButtonLink } from '~/components/links'
import type { PageHandle } from '~/lib/pages/page-handle'

export const handle: PageHandle = { sharedAnonymousRender: true }

export const meta: MetaFunction = () => [
  { title: 'Subscribely: your projects, analytics and team in one simple plan' },
  {
    name: 'description',
    content:
      'Start with one project or go Pro for unlimited projects, advanced analytics and your whole team. Monthly plans, paid by card, cancel any time.',
  },
]

const features = [
  {
    title: 'Simple monthly plans',
    body: 'Starter for one project, Pro for unlimited projects and your team. No setup fees, no long contracts.',
  },
  {
    title: 'Change or cancel any time',
    body: 'Switch plans, update your card or cancel from your billing settings in a few clicks.',
  },
  {
    title: 'Every payment on record',
    body: 'Your billing history lists every payment with its invoice, and a receipt arrives by email.',
  },
  {
    title: 'Your account, kept safe',
    body: 'Sign in with a password, a magic link or GitHub, and sign out of every device at once if you need to.',
  },
]

export default function Index() {
  return (
    <>
      <section className="bg-gradient-to-b from-brand-50 to-white">
        <div className="mx-auto max-w-4xl px-4 py-20 text-center sm:py-28">
          <h1 className="text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">
            Your projects, analytics and team, in one simple plan
          </h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg text-slate-700">
            Start with one project, or go Pro for unlimited projects, advanced analytics and your
            whole team. Pay monthly by card, and change or cancel whenever you like.
          </p>
          <div className="mt-10 flex flex-wrap justify-center gap-3">
            <ButtonLink to="/pricing">See plans and pricing</ButtonLink>
            <ButtonLink to="/sign-up" variant="secondary">
              Create an account
            </ButtonLink>
          </div>
        </div>
      </section>
      <section aria-labelledby="features-heading" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="features-heading" className="text-center text-2xl font-bold tracking-tight">
          What you get with every plan
        </h2>
        <ul className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {features.map((feature) => (
            <li key={feature.title} className="rounded-lg border border-slate-200 p-6">
              <h3 className="font-semibold text-slate-900">{feature.title}</h3>
              <p className="mt-2 text-sm text-slate-700">{feature.body}</p>
            </li>
          ))}
        </ul>
      </section>
      <section className="border-t border-slate-200 bg-slate-50">
        <div className="mx-auto max-w-4xl px-4 py-16 text-center">
          <h2 className="text-2xl font-bold tracking-tight">Questions before you subscribe?</h2>
          <p className="mt-3 text-slate-700">We answer every message within one business day.</p>
          <ButtonLink to="/contact" variant="secondary" className="mt-6">
            Contact us
          </ButtonLink>
        </div>
      </section>
    </>
  )
}
