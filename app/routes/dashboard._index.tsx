import type { MetaFunction } from '@remix-run/node'
import { useRouteLoaderData, useSearchParams } from '@remix-run/react'
import { FormMessage } from '~/components/forms'

type DashboardData = { user: { id: string; email: string } }

export default function DashboardOverview() {
  const data = useRouteLoaderData<DashboardData>('routes/dashboard')
  const [params] = useSearchParams()
  return (
    <div className="space-y-6">
      {params.get('password') === 'updated' ? <FormMessage tone="success">Your password has been updated.</FormMessage> : null}
      <h1 className="text-3xl font-bold tracking-tight">Dashboard</h1>
      <p className="text-slate-700">
        Signed in as <strong>{data?.user.email}</strong>.
      </p>
    </div>
  )
}

export const meta: MetaFunction = () => [{ title: 'Dashboard | Subscribely' }]
