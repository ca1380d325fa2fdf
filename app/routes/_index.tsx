import type { MetaFunction } from '@remix-run/node'
import { Link } from '@remix-run/react'

export const meta: MetaFunction = () => [
  { title: 'Subscribely: subscriptions with Stripe and Polar, done right' },
  {
    name: 'description',
    content:
      'Sign up, subscribe through Stripe or Polar, and manage billing. Subscription state stays in sync from provider webhooks.',
  },
]

const features = [
  {
    title: 'Two payment providers',
    body: 'Subscribe through Stripe Checkout or Polar. Both hosted checkouts, both billing portals, one subscription record.',
  },
  {
    title: 'No lost payment events',
    body: 'Every webhook is verified, recorded in a ledger and applied exactly once, in order, even when providers retry.',
  },
  {
    title: 'Secure accounts',
    body: 'Email and password, magic links and OAuth through Supabase Auth, with row-level security on every table.',
  },
  {
    title: 'Works without JavaScript',
    body: 'Every form is a real HTML form. JavaScript makes it faster, never required.',
  },
]

export default function Index() {
  return (
    <>
      <section className="bg-gradient-to-b from-brand-50 to-white">
        <div className="mx-auto max-w-4xl px-4 py-20 text-center sm:py-28">
          <h1 className="text-4xl font-bold tracking-tight text-slate-900 sm:text-5xl">
            Subscriptions that stay in sync
          </h1>
          <p className="mx-auto mt-6 max-w-2xl text-lg text-slate-700">
            Subscribely lets people sign up, subscribe with Stripe or Polar and manage their
            billing, while every payment event from the providers lands in your database exactly
            once.
          </p>
          <div className="mt-10 flex flex-wrap justify-center gap-3">
            <Link
              to="/pricing"
              className="rounded-md bg-brand-600 px-5 py-3 text-sm font-semibold text-white shadow-sm hover:bg-brand-700"
            >
              See plans and pricing
            </Link>
            <Link
              to="/sign-up"
              className="rounded-md border border-slate-300 bg-white px-5 py-3 text-sm font-semibold text-slate-900 hover:bg-slate-50"
            >
              Create a free account
            </Link>
          </div>
        </div>
      </section>
      <section aria-labelledby="features-heading" className="mx-auto max-w-6xl px-4 py-16">
        <h2 id="features-heading" className="text-center text-2xl font-bold tracking-tight">
          Everything a subscription product needs
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
          <Link
            to="/contact"
            className="mt-6 inline-block rounded-md border border-slate-300 bg-white px-5 py-3 text-sm font-semibold text-slate-900 hover:bg-slate-100"
          >
            Contact us
          </Link>
        </div>
      </section>
    </>
  )
}
