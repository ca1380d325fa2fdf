import { createContext, useContext } from 'react'

const NonceContext = createContext('')

/**
 * The CSP nonce of this HTML response, set by `entry.server.tsx`. In the browser it is ''
 * (browsers hide nonces from the DOM, and nothing inlined after hydration needs one).
 */
export const NonceProvider = NonceContext.Provider

/** The nonce every inline `<script>` rendered on the server must carry. */
export function useNonce() {
  return useContext(NonceContext)
}
