/**
 * Portal deep links (`flow_data`): `payment_method_update` and `subscription_update_confirm`
 * (one item: "only up to one may be specified"), then `after_completion`; others are refused.
 */
import { field, text } from './checkout'
import { invalid, missingParam, type Param } from './http'

export interface PortalFlow {
  after_completion: {
    hosted_confirmation: null
    redirect: { return_url: string } | null
    type: 'portal_homepage' | 'redirect'
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

const notEmulated = (param: string, value: string) =>
  invalid(`The emulator does not implement ${param}=${value}.`, param)

/** The session's `flow` from the `flow_data` parameter (null without one). */
export function parseFlowData(value: Param | undefined): PortalFlow | null {
  if (value === undefined) return null
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('Invalid object', 'flow_data')
  }
  const type = text(value.type)
  if (!type) throw missingParam('flow_data[type]')
  if (type !== 'payment_method_update' && type !== 'subscription_update_confirm') {
    throw notEmulated('flow_data[type]', type)
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
    type,
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
  if (type === 'portal_homepage') {
    return { hosted_confirmation: null, redirect: null, type }
  }
  const param = 'flow_data[after_completion][redirect][return_url]'
  if (type !== 'redirect') throw notEmulated('flow_data[after_completion][type]', type)
  const returnUrl = text(field(field(value, 'redirect'), 'return_url'))
  if (!returnUrl) throw missingParam(param)
  if (!/^https?:\/\//.test(returnUrl)) throw invalid('Not a valid URL', param, 'url_invalid')
  return { hosted_confirmation: null, redirect: { return_url: returnUrl }, type }
}
