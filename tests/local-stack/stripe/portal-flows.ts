/**
 * Portal deep links (`flow_data` on `POST /v1/billing_portal/sessions`): the session opens
 * straight on one task and, once it is done, goes where `after_completion` says. The
 * emulator implements `payment_method_update`; the other types Stripe has are refused with
 * a message saying so, and anything else as Stripe refuses an invalid enum value.
 * `subscription_update_confirm` names one subscription item and the price it changes to
 * (Stripe: "only up to one may be specified"); the session checks them (portal.ts).
 */
import { field, text } from './checkout'
import { invalid, missingParam, type Param } from './http'

const FLOW_TYPES = [
  'customer_update',
  'payment_method_update',
  'subscription_cancel',
  'subscription_pause',
  'subscription_update',
  'subscription_update_confirm',
]
const IMPLEMENTED = ['payment_method_update', 'subscription_update_confirm']
const AFTER_COMPLETION_TYPES = ['hosted_confirmation', 'portal_homepage', 'redirect']

export interface PortalFlow {
  after_completion: {
    hosted_confirmation: { custom_message: string | null } | null
    redirect: { return_url: string } | null
    type: 'hosted_confirmation' | 'portal_homepage' | 'redirect'
  }
  customer_update: null
  subscription_cancel: null
  subscription_pause: null
  subscription_update: null
  subscription_update_confirm: UpdateConfirm | null
  type: 'payment_method_update' | 'subscription_update_confirm'
}

interface UpdateConfirm {
  discounts: []
  items: { id: string; price: string; quantity: number | null }[]
  subscription: string
}

/** The session's `flow` from the `flow_data` parameter (null without one). */
export function parseFlowData(value: Param | undefined): PortalFlow | null {
  if (value === undefined) return null
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('Invalid object', 'flow_data')
  }
  const type = text(value.type)
  if (!type) throw missingParam('flow_data[type]')
  if (!FLOW_TYPES.includes(type)) {
    throw invalid(
      `Invalid flow_data[type]: must be one of ${FLOW_TYPES.join(', ')}`,
      'flow_data[type]',
      'parameter_invalid_string',
    )
  }
  if (!IMPLEMENTED.includes(type)) {
    throw invalid(`The emulator does not implement flow_data[type]=${type}.`, 'flow_data[type]')
  }
  return {
    after_completion: afterCompletion(value.after_completion),
    customer_update: null,
    subscription_cancel: null,
    subscription_pause: null,
    subscription_update: null,
    subscription_update_confirm:
      type === 'subscription_update_confirm'
        ? updateConfirm(value.subscription_update_confirm)
        : null,
    type: type as PortalFlow['type'],
  }
}

function updateConfirm(value: Param | undefined): UpdateConfirm {
  const at = 'flow_data[subscription_update_confirm]'
  const subscription = text(field(value, 'subscription'))
  if (!subscription) throw missingParam(`${at}[subscription]`)
  const items = field(value, 'items')
  if (!Array.isArray(items) || items.length === 0) throw missingParam(`${at}[items]`)
  if (items.length > 1)
    throw invalid('Currently, only up to one subscription item may be specified.', `${at}[items]`)
  const id = text(field(items[0], 'id'))
  if (!id) throw missingParam(`${at}[items][0][id]`)
  const price = text(field(items[0], 'price'))
  if (!price) throw missingParam(`${at}[items][0][price]`)
  const quantity = text(field(items[0], 'quantity'))
  return {
    discounts: [],
    items: [{ id, price, quantity: quantity ? Number(quantity) : null }],
    subscription,
  }
}

function afterCompletion(value: Param | undefined): PortalFlow['after_completion'] {
  const type = text(field(value, 'type')) ?? 'portal_homepage'
  if (!AFTER_COMPLETION_TYPES.includes(type)) {
    throw invalid(
      `Invalid flow_data[after_completion][type]: must be one of ${AFTER_COMPLETION_TYPES.join(', ')}`,
      'flow_data[after_completion][type]',
      'parameter_invalid_string',
    )
  }
  if (type === 'redirect') {
    const returnUrl = text(field(field(value, 'redirect'), 'return_url'))
    if (!returnUrl) throw missingParam('flow_data[after_completion][redirect][return_url]')
    if (!/^https?:\/\//.test(returnUrl)) {
      throw invalid(
        'Not a valid URL',
        'flow_data[after_completion][redirect][return_url]',
        'url_invalid',
      )
    }
    return { hosted_confirmation: null, redirect: { return_url: returnUrl }, type }
  }
  if (type === 'hosted_confirmation') {
    const message = text(field(field(value, 'hosted_confirmation'), 'custom_message')) ?? null
    return { hosted_confirmation: { custom_message: message }, redirect: null, type }
  }
  return { hosted_confirmation: null, redirect: null, type: 'portal_homepage' }
}
