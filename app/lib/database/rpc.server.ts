import * as z from 'zod/mini'

import type { Json } from '../../../supabase/database.types'
import { type AsUser, database, type DatabaseFunctions } from './database.server'
import { databaseError } from './database-availability.server'

type FunctionName = keyof DatabaseFunctions & string
type Returns<Name extends FunctionName> = DatabaseFunctions[Name]['Returns']
/** The functions answering `jsonb`: the generated type says nothing of their shape. */
type JsonFunction = {
  [Name in FunctionName]: Json extends Returns<Name> ? Name : never
}[FunctionName]

/** Arguments as callers pass them: any may be null, and a `jsonb` one takes any JSON value. */
type RpcArgs<Name extends FunctionName> = {
  [Arg in keyof DatabaseFunctions[Name]['Args']]:
    | (Json extends DatabaseFunctions[Name]['Args'][Arg]
        ? unknown
        : DatabaseFunctions[Name]['Args'][Arg])
    | null
}

interface RpcOptions {
  /** Run as the signed-in user (under RLS) instead of the service role. */
  asUser?: AsUser
  /** A read-only function called with GET (PostgREST then runs it in a read-only transaction). */
  get?: boolean
}

/** A failure throws `databaseError`; with `result`, a `jsonb` of another shape is a 500. */
export function rpc<Name extends Exclude<FunctionName, JsonFunction>>(
  name: Name,
  args: RpcArgs<Name>,
  options?: RpcOptions,
): Promise<Returns<Name>>
export function rpc<Name extends FunctionName, Result>(
  name: Name,
  args: RpcArgs<Name>,
  options: RpcOptions & { result: z.ZodMiniType<Result> },
): Promise<Result>
export async function rpc(
  name: FunctionName,
  args: Record<string, unknown>,
  { asUser, get, result }: RpcOptions & { result?: z.ZodMiniType } = {},
) {
  const { data, error, status } = await database({ asUser }).rpc(name, args as never, { get })
  if (error) throw databaseError(name, { ...error, status })
  return result ? checkedAnswer(name, result, data) : data
}

/** `data` as `schema` says, or an Error naming the function (a 500: the code and schema disagree). */
export function checkedAnswer<Result>(name: string, schema: z.ZodMiniType<Result>, data: unknown) {
  const parsed = z.safeParse(schema, data)
  if (parsed.success) return parsed.data
  throw new Error(`${name} returned an unexpected value: ${JSON.stringify(data)}`, {
    cause: parsed.error,
  })
}

/** A table's row inside a `jsonb` answer (`to_jsonb(row)`): typed by the table's generated row. */
export const tableRow = <Row>() =>
  z.custom<Row>((value) => typeof value === 'object' && value !== null && !Array.isArray(value))
