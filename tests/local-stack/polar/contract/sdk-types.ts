/** What `@polar-sh/sdk` 1.x declares each call returns: it has no runtime schemas. */
import { PolarClientError } from '@polar-sh/sdk'
import { type createPolar, errors } from '@polar-sh/sdk/2026-10'

import { loadSdkTypes, type SdkTypes } from '../../sdk-types/program'
import { type Problem, validate } from '../../sdk-types/validate'

/** Every SDK call the emulator serves, with the route that answers it. */
export const SDK_CALLS = {
  'checkouts.create': 'POST /v1/checkouts/',
  'checkouts.get': 'GET /v1/checkouts/:id',
  'customerSessions.create': 'POST /v1/customer-sessions/',
  'customers.list': 'GET /v1/customers/',
  'customers.create': 'POST /v1/customers/',
  'customers.update': 'PATCH /v1/customers/:id',
  'customers.getExternal': 'GET /v1/customers/external/:externalId',
  'customers.deleteExternal': 'DELETE /v1/customers/external/:externalId',
  'subscriptions.list': 'GET /v1/subscriptions/',
  'subscriptions.get': 'GET /v1/subscriptions/:id',
  'subscriptions.update': 'PATCH /v1/subscriptions/:id',
  'subscriptions.revoke': 'DELETE /v1/subscriptions/:id',
  'orders.list': 'GET /v1/orders/',
  'orders.generateInvoice': 'POST /v1/orders/:id/invoice',
  'orders.invoice': 'GET /v1/orders/:id/invoice',
  'webhooks.listWebhookEndpoints': 'GET /v1/webhooks/endpoints',
} as const

export type SdkCall = keyof typeof SDK_CALLS

/** The SDK's typed error classes: each declares the body (`error.error`) it carries. */
const ERROR_CLASSES = Object.keys(errors)

const callAlias = (call: string) => `call_${call.replace('.', '_')}`

export function loadPolarTypes(): SdkTypes {
  const calls = Object.keys(SDK_CALLS).map((call) => {
    const [group, method] = call.split('.')
    return `export type ${callAlias(call)} = Result<Polar['${group}']['${method}']>`
  })
  const failures = ERROR_CLASSES.map(
    (name) => `export type error_${name} = InstanceType<typeof errors.${name}>['error']`,
  )
  return loadSdkTypes(
    [
      `import type { createPolar, errors, webhooks } from '@polar-sh/sdk/2026-10'`,
      `type Polar = ReturnType<typeof createPolar>`,
      `type Result<F> = F extends (...args: never[]) => Promise<infer R> ? R : never`,
      ...calls,
      ...failures,
      `export type webhook_payload = Awaited<ReturnType<typeof webhooks.validateEvent>>`,
    ].join('\n'),
  )
}

type PolarClient = ReturnType<typeof createPolar>

export interface CheckedCall {
  call: string
  /** `ok`, or the name of the typed error the SDK threw. */
  outcome: string
  problems: Problem[]
}

/** The SDK client, every call's result (or typed error body) checked and recorded in `log`. */
export function checkedPolar(polar: PolarClient, types: SdkTypes, log: CheckedCall[]) {
  const groups = polar as unknown as Record<string, Record<string, unknown>>
  const wrapped = Object.fromEntries(
    Object.entries(groups).map(([group, methods]) => [
      group,
      Object.fromEntries(
        Object.entries(methods).map(([method, fn]) => [
          method,
          typeof fn === 'function'
            ? checked(`${group}.${method}`, fn as (...args: unknown[]) => unknown, types, log)
            : fn,
        ]),
      ),
    ]),
  )
  return wrapped as unknown as PolarClient
}

function checked(
  call: string,
  fn: (...args: unknown[]) => unknown,
  types: SdkTypes,
  log: CheckedCall[],
) {
  const declared = call in SDK_CALLS ? types.get(callAlias(call)) : undefined
  return async (...args: unknown[]) => {
    try {
      const result = await fn(...args)
      log.push({ call, outcome: 'ok', problems: declared ? validate(types, result, declared) : [] })
      return result
    } catch (error) {
      if (error instanceof PolarClientError && ERROR_CLASSES.includes(error.constructor.name)) {
        const body = types.get(`error_${error.constructor.name}`)
        log.push({
          call,
          outcome: error.constructor.name,
          problems: validate(types, error.error, body),
        })
      } else {
        log.push({ call, outcome: String(error), problems: [] })
      }
      throw error
    }
  }
}
