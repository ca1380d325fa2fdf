import { randomBytes } from 'node:crypto'
import type { ServerResponse } from 'node:http'

import * as toolkit from '../http'

export { escapeHtml, readText as readBody } from '../http'

export type Param = string | Param[] | { [key: string]: Param }
export type Params = { [key: string]: Param }

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly code?: string,
    readonly param?: string,
  ) {
    super(message)
  }

  toJSON() {
    const error: Record<string, string> = { type: this.type, message: this.message }
    if (this.code) {
      error.code = this.code
      error.doc_url = `https://stripe.com/docs/error-codes/${this.code.replaceAll('_', '-')}`
    }
    if (this.param) error.param = this.param
    return { error }
  }
}

/** 404 (or 400 when the id came in a parameter) `resource_missing` "No such …". */
export function noSuch(kind: string, id: string, param = 'id') {
  const status = param === 'id' ? 404 : 400
  const message = `No such ${kind}: '${id}'`
  return new StripeApiError(status, 'invalid_request_error', message, 'resource_missing', param)
}

export function invalid(message: string, param?: string, code = 'parameter_invalid') {
  return new StripeApiError(400, 'invalid_request_error', message, code, param)
}

export function missingParam(param: string) {
  return invalid(`Missing required param: ${param}.`, param, 'parameter_missing')
}

export function randomId(prefix: string, length = 24) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  const bytes = randomBytes(length)
  let out = ''
  for (const byte of bytes) out += alphabet[byte % alphabet.length]
  return `${prefix}_${out}`
}

/** Decodes `a[b][0][c]=v` (and `a[]=v`) into nested objects and arrays, like Stripe's API. */
export function decodeForm(source: string | URLSearchParams): Params {
  const search = typeof source === 'string' ? new URLSearchParams(source) : source
  const root: Params = {}
  for (const [rawKey, value] of search) {
    const match = /^([^[]+)((?:\[[^\]]*\])*)$/.exec(rawKey)
    const keys = match
      ? [match[1], ...[...match[2].matchAll(/\[([^\]]*)\]/g)].map((m) => m[1])]
      : [rawKey]
    assign(root, keys, value)
  }
  return normalizeArrays(root) as Params
}

function assign(target: Params, keys: string[], value: string) {
  let node: Params = target
  keys.forEach((key, index) => {
    const name = key === '' ? String(Object.keys(node).length) : key
    if (index === keys.length - 1) {
      node[name] = value
      return
    }
    const next = node[name]
    if (typeof next !== 'object' || Array.isArray(next)) node[name] = {}
    node = node[name] as Params
  })
}

function normalizeArrays(value: Param): Param {
  if (typeof value === 'string' || Array.isArray(value)) return value
  const keys = Object.keys(value)
  const entries = keys.map((key) => [key, normalizeArrays(value[key])] as const)
  const isList = keys.length > 0 && keys.every((key, index) => key === String(index))
  if (isList) return entries.map(([, item]) => item)
  return Object.fromEntries(entries)
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  toolkit.sendJson(res, status, body, {
    indent: 2,
    headers: { 'cache-control': 'no-cache, no-store', ...headers },
  })
}

export function sendHtml(res: ServerResponse, status: number, body: string) {
  toolkit.sendHtml(res, status, body, { headers: { 'cache-control': 'no-store' } })
}

export function redirect(res: ServerResponse, location: string) {
  toolkit.redirect(res, location, 303, { headers: { 'cache-control': 'no-store' } })
}

/** Unknown parameters are `parameter_unknown`; real ones the emulator lacks say so. */
export function checkKnown(value: Param, known: { emulated: string[]; real: string[] }) {
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid(`Invalid object`)
  for (const key of Object.keys(value)) {
    if (known.emulated.includes(key)) continue
    if (known.real.includes(key))
      throw invalid(`The local Stripe emulator does not support \`${key}\`.`, key)
    throw invalid(`Received unknown parameter: ${key}`, key, 'parameter_unknown')
  }
}
