import { afterAll, describe, expect, it } from 'vitest'

import { createTestDatabase } from '../setup/database'

// Each API role's privileges on every table, column and function in `public`, on a database
// that grants nothing by default (as hosted Supabase): a migration must grant explicitly.
type Role = 'anon' | 'authenticated' | 'service_role'
const ROLES: Role[] = ['anon', 'authenticated', 'service_role']
const ROW_DATA = ['SELECT', 'INSERT', 'UPDATE', 'DELETE']
const TABLE_PRIVILEGES = [...ROW_DATA, 'TRUNCATE', 'REFERENCES', 'TRIGGER']

/** What each role may do on each table (anything not listed: nothing). */
const TABLES: Record<string, Partial<Record<Role, string[]>>> = {
  // Read only inside the ledger functions.
  billing_provider_rules: {},
  user_profiles: { authenticated: ['SELECT'], service_role: ROW_DATA },
  user_subscriptions: { authenticated: ['SELECT'], service_role: ROW_DATA },
  payment_history: { authenticated: ['SELECT'], service_role: ROW_DATA },
  payment_totals: { authenticated: ['SELECT'], service_role: ROW_DATA },
  stripe_products: { service_role: ROW_DATA },
  webhook_events: { service_role: ROW_DATA },
  rate_limits: { service_role: ROW_DATA },
  notification_outbox: { service_role: ROW_DATA },
  contact_messages: { service_role: ROW_DATA },
}

/** Column privileges beyond the tables': the profile fields a user edits. */
const PROFILE_FIELDS = ['avatar_path', 'display_name', 'notify_billing', 'notify_product_updates']
const USER_UPDATES = [...PROFILE_FIELDS, 'notify_security']

// Who may execute each function; each provider's payment writers come from its rules row.
const FUNCTIONS: Record<string, Role[]> = {
  'set_updated_at()': [],
  'handle_new_user()': [],
  'subscription_status_rank(p_status text)': [],
  'record_webhook_event(p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamp with time zone)':
    ['service_role'],
  'apply_subscription_event(p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamp with time zone, p_user_id uuid, p_fields jsonb)':
    ['service_role'],
  'record_payment_event(p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamp with time zone, p_payment jsonb)':
    ['service_role'],
  'rate_limit_hit(p_key text, p_limit integer, p_window_ms integer)': ['service_role'],
  'rate_limit_hits(p_keys text[], p_limits integer[], p_window_ms integer[])': ['service_role'],
  'billing_overview(p_page integer, p_page_size integer)': ['authenticated'],
  'account_summary()': ['authenticated'],
  'account_billing_overview(p_page integer, p_page_size integer)': ['authenticated'],
  'current_plan_change()': ['authenticated'],
  'account_settings_overview()': ['authenticated'],
  'ledger_user(p_keys text[], p_named uuid, p_data jsonb)': [],
  'queue_refund_notice()': [],
  'queue_customer_email()': [],
  'track_payment_total()': [],
  'session_is_active(p_session_id uuid, p_user_id uuid)': ['service_role'],
  'email_link_state(p_token_hash text)': ['service_role'],
  'email_change_waiting_for()': ['authenticated'],
  'sign_up_confirmed(p_email text, p_nonce text)': ['service_role'],
  'sign_up_unproven(p_email text, p_token_hash text, p_nonce text)': ['service_role'],
  'enqueue_notification(p_user_id uuid, p_kind text, p_data jsonb, p_to text, p_dedupe_key text)': [
    'service_role',
  ],
  'record_payment_failure(p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamp with time zone, p_user_id uuid, p_data jsonb, p_payment jsonb)':
    ['service_role'],
  'queue_payment_receipt()': [],
  'queue_subscription_notice()': [],
  'queue_email_change_notice()': [],
  'queue_account_deleted_notice()': [],
  'claim_notifications(p_limit integer, p_lease_seconds integer)': ['service_role'],
  'enqueue_attempts_notice(p_email text, p_flow text, p_data jsonb)': ['service_role'],
  'store_contact_message(p_message jsonb, p_team text)': ['service_role'],
  'finish_notification(p_id uuid, p_attempt integer, p_outcome text, p_error text, p_retry_at timestamp with time zone)':
    ['service_role'],
  'note_payment_failure(p_user_id uuid, p_failed_at timestamp with time zone, p_retry_at timestamp with time zone)':
    ['service_role'],
  'track_payment_failure()': [],
  'fail_pending_payments()': [],
  'fill_payment_details(p_fields jsonb, p_payment_id uuid, p_provider text, p_provider_payment_id text)':
    ['service_role'],
  'schema_version()': ['service_role'],
  'operations_metrics()': ['service_role'],
}

const db = await createTestDatabase()
afterAll(() => db.close())

async function publicObjects(kind: 'r' | 'S') {
  const { rows } = await db.query<{ name: string }>(
    `select relname as name from pg_class
     where relnamespace = 'public'::regnamespace and relkind = $1 order by relname`,
    [kind],
  )
  return rows.map((row) => row.name)
}

describe('privileges in public', () => {
  it('every table is in the matrix, and the matrix names only tables that exist', async () => {
    expect(await publicObjects('r')).toEqual(Object.keys(TABLES).sort())
  })

  it('there are no sequences (every key is a uuid or natural), so none can be left ungranted', async () => {
    expect(await publicObjects('S')).toEqual([])
  })

  it.each(Object.keys(TABLES))('%s: each role has exactly its table privileges', async (table) => {
    for (const role of ROLES) {
      const { rows } = await db.query<{ privilege: string }>(
        `select privilege from unnest($1::text[]) as privilege
         where has_table_privilege($2, $3, privilege) order by privilege`,
        [TABLE_PRIVILEGES, role, `public.${table}`],
      )
      expect({ role, privileges: rows.map((row) => row.privilege) }).toEqual({
        role,
        privileges: [...(TABLES[table][role] ?? [])].sort(),
      })
    }
  })

  it('column privileges: a user updates only the profile fields they edit', async () => {
    const { rows } = await db.query<{
      table_name: string
      grantee: string
      column_name: string
      privilege_type: string
    }>(
      `select table_name, grantee, column_name, privilege_type
       from information_schema.column_privileges
       where table_schema = 'public' and grantee in ('anon', 'authenticated', 'service_role')
       order by table_name, grantee, column_name, privilege_type`,
    )
    // Every column privilege comes from a table grant, except these column grants.
    const columnOnly = rows.filter(
      (row) => !(TABLES[row.table_name]?.[row.grantee as Role] ?? []).includes(row.privilege_type),
    )
    const expected = USER_UPDATES.map((column) => ({
      table_name: 'user_profiles',
      grantee: 'authenticated',
      column_name: column,
      privilege_type: 'UPDATE',
    }))
    expect(columnOnly).toEqual(expected)
  })

  it('every function in public is in the matrix, executable by exactly its roles and not by PUBLIC', async () => {
    const { rows: writers } = await db.query<{ signature: string }>(
      `select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as signature
       from public.billing_provider_rules r
       cross join unnest(array[r.payment_row, r.payment_change]) f
       join pg_proc p on p.proname = f and p.pronamespace = 'public'::regnamespace`,
    )
    expect(writers.length).toBeGreaterThan(0)
    const matrix = { ...FUNCTIONS, ...Object.fromEntries(writers.map((w) => [w.signature, []])) }
    const { rows } = await db.query<{ signature: string; roles: string[]; by_public: boolean }>(
      `select p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')' as signature,
         array(select r from unnest(array['anon', 'authenticated', 'service_role']) r
               where has_function_privilege(r, p.oid, 'execute') order by r) as roles,
         exists (select 1 from aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                 where a.grantee = 0 and a.privilege_type = 'EXECUTE') as by_public
       from pg_proc p where p.pronamespace = 'public'::regnamespace order by 1`,
    )
    expect(rows.map((row) => row.signature)).toEqual(Object.keys(matrix).sort())
    for (const row of rows) {
      expect({ fn: row.signature, roles: row.roles, byPublic: row.by_public }).toEqual({
        fn: row.signature,
        roles: [...matrix[row.signature]].sort(),
        byPublic: false,
      })
    }
  })
})
