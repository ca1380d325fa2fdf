import { describe, expect, it } from 'vitest'
import { accessLogPath } from './access-log.server'

describe('accessLogPath', () => {
  it('replaces one-time token values and keeps every other parameter as it came', () => {
    expect(
      accessLogPath(
        '/auth/confirm?token_hash=pkce_0123abcd&type=signup&redirectTo=%2Fdashboard%3Ftab%3D1',
      ),
    ).toBe('/auth/confirm?token_hash=[redacted]&type=signup&redirectTo=%2Fdashboard%3Ftab%3D1')
    expect(accessLogPath('/auth/callback?code=9f8e7d&next=%2Fbilling')).toBe(
      '/auth/callback?code=[redacted]&next=%2Fbilling',
    )
    expect(accessLogPath('/verify?token=123456&token=654321')).toBe(
      '/verify?token=[redacted]&token=[redacted]',
    )
  })

  it('recognises a name however it is spelled on the wire', () => {
    expect(accessLogPath('/a?TOKEN_HASH=x&%63ode=y&tok%65n=z')).toBe(
      '/a?TOKEN_HASH=[redacted]&%63ode=[redacted]&tok%65n=[redacted]',
    )
    // A secret name without a value is marked all the same; a malformed escape is kept as is.
    expect(accessLogPath('/a?code&x=%E0%A4%A')).toBe('/a?code=[redacted]&x=%E0%A4%A')
  })

  it('leaves paths without a query, and parameters that only contain a secret name, alone', () => {
    expect(accessLogPath('/dashboard')).toBe('/dashboard')
    expect(accessLogPath('/auth/code?codes=1&postcode=2&redirectTo=%3Fcode%3D3')).toBe(
      '/auth/code?codes=1&postcode=2&redirectTo=%3Fcode%3D3',
    )
  })
})
