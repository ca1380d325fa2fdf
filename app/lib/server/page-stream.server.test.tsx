import { Suspense } from 'react'
import { renderToPipeableStream } from 'react-dom/server'
import { describe, expect, it, vi } from 'vitest'

import { pageBody } from './page-stream.server'

const settle = () => new Promise((resolve) => setTimeout(resolve, 20))

describe('pageBody', () => {
  it('carries a whole render, and React ends it once (no second end after it closed)', async () => {
    const { body, stream } = pageBody()
    const end = vi.spyOn(body, 'end')
    const { pipe } = renderToPipeableStream(<p>Hello</p>, { onShellReady: () => pipe(body) })
    const html = await new Response(stream).text()
    await settle()
    expect(html).toContain('<p>Hello</p>')
    expect(end).toHaveBeenCalledTimes(1)
  })

  it('a client that leaves (the web stream cancelled) stops the render', async () => {
    const { body, stream } = pageBody()
    const errors: unknown[] = []
    // Suspends for good (React 18: a component throws the promise it waits for).
    const never = new Promise<never>(() => {})
    function Pending(): never {
      throw never
    }
    const { pipe } = renderToPipeableStream(
      <Suspense fallback={<p>Loading</p>}>
        <Pending />
      </Suspense>,
      { onShellReady: () => pipe(body), onError: (error) => void errors.push(error) },
    )
    const reader = stream.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toContain('Loading')
    await reader.cancel()
    await settle()
    expect(body.destroyed).toBe(true)
    expect(String(errors[0])).toMatch(/closed early/)
  })
})
