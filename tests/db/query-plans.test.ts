import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import type { Queryable } from '../local-stack/database'
import { createTestDatabase } from '../setup/database'

// The queries of the pages and webhooks read the tables that grow with the users through an
// index (docs/performance.md). Sequential scans are off: one in a plan means no index serves.
const READER = '10000000-0000-4000-8000-000000000001'
const USERS = 2_000
const GROWING = [
  'users',
  'sessions',
  'user_profiles',
  'user_subscriptions',
  'payment_history',
  'payment_totals',
  'webhook_events',
]

interface PlanNode {
  'Node Type': string
  'Relation Name'?: string
  'Index Name'?: string
  Plans?: PlanNode[]
}

function nodes(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodes)]
}

async function explain(tx: Queryable, sql: string, params: unknown[] = []) {
  const { rows } = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(
    `explain (format json) ${sql}`,
    params,
  )
  const raw = rows[0]['QUERY PLAN']
  const json = typeof raw === 'string' ? (JSON.parse(raw) as [{ Plan: PlanNode }]) : raw
  return nodes(json[0].Plan)
}

/**
 * The body of a `language sql` function, its parameters as $1, $2, …: the migration's own, with
 * the settings it runs with (`create function … set name = value`) set, as a call would.
 */
async function functionBody(tx: Queryable, name: string) {
  const { rows } = await tx.query<{
    prosrc: string
    proargnames: string[] | null
    proconfig: string[] | null
  }>(
    `select prosrc, proargnames, proconfig from pg_proc where proname = $1 and pronamespace = 'public'::regnamespace`,
    [name],
  )
  for (const [setting, value] of (rows[0].proconfig ?? []).map((entry) => entry.split('=')))
    if (setting !== 'search_path')
      await tx.query('select set_config($1, $2, true)', [setting, value])
  let body = rows[0].prosrc
  ;(rows[0].proargnames ?? []).forEach((arg, index) => {
    body = body.replace(new RegExp(`\\b${arg}\\b`, 'g'), `$${index + 1}`)
  })
  return body
}

/** fn as `role` with the reader's claims, or as the functions' owner, sequential scans off. */
function as<T>(
  role: 'authenticated' | 'service_role' | 'owner',
  fn: (tx: Queryable) => Promise<T>,
) {
  const claims = JSON.stringify({ sub: READER, role, aud: 'authenticated' })
  return db.transaction(fn, {
    settings: {
      ...(role === 'owner' ? {} : { role, 'request.jwt.claims': claims }),
      enable_seqscan: 'off',
    },
  })
}

function seqScans(plan: PlanNode[]) {
  return plan
    .filter((node) => node['Node Type'] === 'Seq Scan' && GROWING.includes(node['Relation Name']!))
    .map((node) => node['Relation Name'])
}

const db = await createTestDatabase()
beforeAll(async () => {
  await db.exec(`
    set session_replication_role = replica;
    insert into auth.users (id, email) values ('${READER}', 'reader@example.com');
    insert into auth.users (id, email)
      select ('20000000-0000-4000-8000-' || lpad(n::text, 12, '0'))::uuid, 'user-' || n || '@example.com'
      from generate_series(1, ${USERS}) n;
    insert into public.user_profiles (user_id) select id from auth.users;
    insert into auth.sessions (id, user_id) select gen_random_uuid(), id from auth.users;
    insert into public.user_subscriptions (user_id, provider, stripe_customer_id, stripe_subscription_id, status)
      select id, 'stripe', 'cus_' || md5(id::text), 'sub_' || md5(id::text), 'active' from auth.users;
    insert into public.payment_history (user_id, provider, provider_payment_id, amount, currency, status, created_at)
      select u.id, 'stripe', 'in_' || g || '_' || md5(u.id::text), 1900, 'usd', 'succeeded', now() - g * interval '1 day'
      from auth.users u, generate_series(1, 3) g;
    insert into public.payment_history (user_id, provider, provider_payment_id, amount, currency, status, created_at)
      select '${READER}', 'stripe', 'in_reader_' || g, 1900, 'usd', 'succeeded', now() - g * interval '1 hour'
      from generate_series(1, 2000) g;
    insert into public.webhook_events (provider, event_id, event_type)
      select 'stripe', 'evt_' || g, 'invoice.payment_succeeded' from generate_series(1, 6000) g;
    insert into public.payment_totals (user_id, total)
      select user_id, count(*) from public.payment_history group by user_id;
    set session_replication_role = origin;
    analyze;
  `)
})
afterAll(() => db.close())

describe('the queries of the signed-in pages use indexes', () => {
  it('the session check (session_is_active) looks the session up by its key', async () => {
    // A security-definer function: planned as its owner.
    const plan = await as('owner', async (tx) =>
      explain(tx, await functionBody(tx, 'session_is_active'), [
        '30000000-0000-4000-8000-000000000001',
        READER,
      ]),
    )
    expect(seqScans(plan)).toEqual([])
    expect(plan.some((node) => node['Relation Name'] === 'sessions')).toBe(true)
  })

  it("the pages' profile and subscription (account_summary), under row-level security", async () => {
    const plan = await as('authenticated', async (tx) =>
      explain(tx, await functionBody(tx, 'account_summary')),
    )
    expect(seqScans(plan)).toEqual([])
    const read = plan.map((node) => node['Relation Name'])
    expect(read).toContain('user_profiles')
    expect(read).toContain('user_subscriptions')
  })

  const overviewPlan = (page: number) =>
    as('authenticated', async (tx) =>
      explain(tx, await functionBody(tx, 'billing_overview'), [page, 10]),
    )

  it.each([1, 50])(
    "the billing page's overview, page %i: one index range in order, no sort of the user's payments",
    async (page) => {
      const plan = await overviewPlan(page)
      expect(seqScans(plan)).toEqual([])
      expect(plan.filter((node) => node['Node Type'].includes('Sort'))).toEqual([])
      expect(plan.map((node) => node['Index Name'])).toContain(
        'payment_history_user_created_id_idx',
      )
    },
  )
})

describe('the queries of the webhooks use indexes', () => {
  // The ledger functions' statements, their user lookups (`ledger_user`) and the app's around them.
  const statements: [string, string, unknown[]][] = [
    ['the user check', 'select exists (select 1 from auth.users where id = $1)', [READER]],
    [
      'the row lock',
      'select * from public.user_subscriptions where user_id = $1 for update',
      [READER],
    ],
    [
      'the subscription update',
      "update public.user_subscriptions set status = 'active' where user_id = $1",
      [READER],
    ],
    [
      'a user by Stripe subscription',
      'select user_id from public.user_subscriptions where stripe_subscription_id = $1 limit 1',
      ['sub_x'],
    ],
    [
      'a user by Stripe customer',
      'select user_id from public.user_subscriptions where stripe_customer_id = $1 limit 1',
      ['cus_x'],
    ],
    [
      'a user by Polar subscription',
      'select user_id from public.user_subscriptions where polar_subscription_id = $1 limit 1',
      ['00000000-0000-4000-8000-000000000000'],
    ],
    [
      "a Polar order's invoice URL",
      "update public.payment_history set invoice_url = 'https://x' where provider = $1 and provider_payment_id = $2 and status in ('paid', 'succeeded') and invoice_url is null",
      ['polar', 'order_x'],
    ],
    [
      'a Stripe invoice already recorded',
      'select id from public.payment_history where provider = $1 and provider_payment_id = $2',
      ['stripe', 'in_x'],
    ],
    [
      'the ledger entry',
      'select 1 from public.webhook_events where provider = $1 and event_id = $2',
      ['stripe', 'evt_x'],
    ],
    [
      'the payments of a page, for deferred lookups',
      'select id from public.payment_history where user_id = $1 and id = any($2::uuid[])',
      [READER, ['40000000-0000-4000-8000-000000000001']],
    ],
  ]
  it.each(statements)('%s', async (_name, sql, params) => {
    const plan = await as('service_role', (tx) => explain(tx, sql, params))
    expect(seqScans(plan)).toEqual([])
  })
})
