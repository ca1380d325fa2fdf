import type { Queryable } from '../../database'
import { restError } from './errors'

/** What PostgREST's schema cache knows about a table or view in `public`. */
export interface TableInfo {
  name: string
  columns: string[]
  primaryKey: string[]
}

/** A function in `public` as PostgREST's schema cache sees it. */
export interface FunctionInfo {
  name: string
  /** Input parameters in order, with their SQL types. */
  inputs: { name: string; type: string }[]
  /** How many trailing inputs have defaults. */
  defaults: number
  returnsSet: boolean
  returnsVoid: boolean
  /** Composite (table, row type or OUT parameters) rather than a scalar. */
  returnsRows: boolean
}

/**
 * PostgREST's schema cache: a table or function is looked up on first use and kept; a name not
 * seen yet is looked up again (tests create objects on a running stack).
 */
export class SchemaCache {
  private tables = new Map<string, TableInfo>()
  private functions = new Map<string, FunctionInfo[]>()

  async table(db: Queryable, name: string): Promise<TableInfo> {
    const cached = this.tables.get(name)
    if (cached) return cached
    const table = await findTable(db, name)
    this.tables.set(name, table)
    return table
  }

  async overloads(db: Queryable, name: string): Promise<FunctionInfo[]> {
    const cached = this.functions.get(name)
    if (cached) return cached
    const overloads = await functionOverloads(db, name)
    if (overloads.length) this.functions.set(name, overloads)
    return overloads
  }
}

/** Looks the table up in pg_catalog; unknown → PostgREST's 404 PGRST205. */
async function findTable(db: Queryable, name: string): Promise<TableInfo> {
  const { rows } = await db.query<{ columns: string[]; primary_key: string[] }>(
    `select
       array(select a.attname::text from pg_attribute a
             where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum) as columns,
       array(select a.attname::text from pg_index i
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
             where i.indrelid = c.oid and i.indisprimary order by a.attnum) as primary_key
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relname = $1 and c.relkind in ('r', 'v', 'm', 'f', 'p')`,
    [name],
  )
  if (rows.length === 0) {
    throw restError(
      404,
      'PGRST205',
      `Could not find the table 'public.${name}' in the schema cache`,
    )
  }
  return { name, columns: rows[0].columns, primaryKey: rows[0].primary_key }
}

interface ProcRow {
  arg_names: string[] | null
  arg_modes: string[] | null
  arg_types: string[]
  nargdefaults: number
  retset: boolean
  rettype: string
  typtype: string
}

async function functionOverloads(db: Queryable, name: string): Promise<FunctionInfo[]> {
  const { rows } = await db.query<ProcRow>(
    `select p.proargnames::text[] as arg_names, p.proargmodes::text[] as arg_modes,
       array(select format_type(t, null) from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[])) t) as arg_types,
       p.pronargdefaults::int as nargdefaults, p.proretset as retset,
       format_type(p.prorettype, null) as rettype, t.typtype::text as typtype
     from pg_proc p
     join pg_namespace n on n.oid = p.pronamespace
     join pg_type t on t.oid = p.prorettype
     where n.nspname = 'public' and p.proname = $1 and p.prokind = 'f'`,
    [name],
  )
  return rows.map((row) => {
    const inputs = row.arg_types
      .map((type, index) => ({
        type,
        name: row.arg_names?.[index] ?? '',
        mode: row.arg_modes?.[index] ?? 'i',
      }))
      .filter((arg) => arg.mode === 'i' || arg.mode === 'b' || arg.mode === 'v')
      .map(({ name: argName, type }) => ({ name: argName, type }))
    return {
      name,
      inputs,
      defaults: row.nargdefaults,
      returnsSet: row.retset,
      returnsVoid: row.rettype === 'void',
      returnsRows: row.typtype === 'c' || row.rettype === 'record',
    }
  })
}

/**
 * Picks the overload whose named parameters are exactly the argument names, less those with
 * defaults; else 404 PGRST202. (PostgREST's single unnamed json/jsonb parameter taking the
 * whole body is not emulated.)
 */
export async function findFunction(
  db: Queryable,
  name: string,
  keys: string[],
  schema: SchemaCache,
) {
  const overloads = await schema.overloads(db, name)
  const candidates = overloads.filter((fn) => {
    const names = fn.inputs.map((input) => input.name)
    const required = names.slice(0, names.length - fn.defaults)
    return keys.every((key) => names.includes(key)) && required.every((arg) => keys.includes(arg))
  })
  candidates.sort((a, b) => a.inputs.length - b.inputs.length)
  if (candidates[0]) return candidates[0]
  const sorted = [...keys].sort()
  const withParams = sorted.length ? `with parameters ${sorted.join(', ')}` : 'without parameters'
  throw restError(
    404,
    'PGRST202',
    sorted.length
      ? `Could not find the function public.${name}(${sorted.join(', ')}) in the schema cache`
      : `Could not find the function public.${name} without parameters in the schema cache`,
    `Searched for the function public.${name} ${withParams} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
  )
}
