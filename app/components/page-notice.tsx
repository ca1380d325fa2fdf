import { useSearchParams } from '@remix-run/react'

import { noticeFor } from '~/lib/pages/notices'

import { FormMessage } from './forms'

export function PageNotice() {
  const [params] = useSearchParams()
  const notice = noticeFor(params)
  if (!notice) return null
  return (
    <div className="mx-auto max-w-6xl px-4 pt-6">
      <FormMessage tone={notice.tone}>{notice.text}</FormMessage>
    </div>
  )
}
