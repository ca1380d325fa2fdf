export function Avatar({
  url,
  name,
  size = 'sm',
}: {
  url: string | null
  name: string
  size?: 'sm' | 'lg'
}) {
  const box = size === 'lg' ? 'h-20 w-20 text-2xl' : 'h-9 w-9 text-sm'
  if (url) {
    return (
      <img
        src={url}
        alt={`Avatar of ${name}`}
        className={`${box} shrink-0 rounded-full border border-slate-200 object-cover`}
      />
    )
  }
  return (
    <span
      aria-hidden="true"
      className={`${box} inline-flex shrink-0 items-center justify-center rounded-full bg-brand-100 font-semibold text-brand-800`}
    >
      {name.trim().charAt(0).toUpperCase() || '?'}
    </span>
  )
}
