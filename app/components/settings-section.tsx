import type { ReactNode } from 'react'

export function SettingsSection({
  id,
  title,
  intro,
  tone = 'default',
  children,
}: {
  id: string
  title: string
  intro?: ReactNode
  tone?: 'default' | 'danger'
  children: ReactNode
}) {
  const border = tone === 'danger' ? 'border-red-200' : 'border-slate-200'
  return (
    <section aria-labelledby={`${id}-heading`} className={`rounded-xl border ${border} p-6`}>
      <h2 id={`${id}-heading`} className="text-lg font-semibold text-slate-900">
        {title}
      </h2>
      {intro ? <div className="mt-1 text-sm text-slate-700">{intro}</div> : null}
      <div className="mt-4 space-y-4">{children}</div>
    </section>
  )
}

export function SettingsHeader({ title, description }: { title: string; description: string }) {
  return (
    <div>
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">{title}</h1>
      <p className="mt-1 text-slate-700">{description}</p>
    </div>
  )
}
