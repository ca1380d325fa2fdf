import { createContext, useContext } from 'react'

const NonceContext = createContext('')

/** The response's CSP nonce (`entry.server.tsx`); '' in the browser, which hides nonces. */
export const NonceProvider = NonceContext.Provider

/** The nonce every inline `<script>` rendered on the server must carry. */
export function useNonce() {
  return useContext(NonceContext)
}
