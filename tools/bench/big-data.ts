// The bench's "100× data" (docs/performance.md), set-based with `session_replication_role =
// replica` (consistent by construction), then vacuum, analyze and a checkpoint, so that the
// runs after it do not share the machine with autovacuum.
import pg from 'pg'

export const BIG_DATA = {
  users: 100_000,
  subscriptions: 100_000,
  payments: 1_000_000,
  readerPayments: 10_000,
  ledgerEvents: 1_000_000,
}

export interface SeedResult {
  seconds: number
  rows: Record<string, number>
}

export async function seedBigData(databaseUrl: string, readerId: string): Promise<SeedResult> {
  const started = Date.now()
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows: existing } = await client.query<{ count: number }>(
      'select count(*)::int as count from public.payment_history where user_id = $1',
      [readerId],
    )
    const readerExtra = Math.max(0, BIG_DATA.readerPayments - existing[0].count)
    const others = BIG_DATA.payments - readerExtra
    await client.query('begin')
    await client.query('set local session_replication_role = replica')
    await client.query(
      `create temporary table seed_users on commit drop as
         select n, gen_random_uuid() as id from generate_series(1, $1::int) n`,
      [BIG_DATA.users],
    )
    await client.query(`
      insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at)
      select id, 'authenticated', 'authenticated', 'seed-' || n || '@example.com', '', now(),
             now() - n * interval '5 minutes', now()
      from seed_users`)
    await client.query(`
      insert into public.user_profiles (user_id) select id from seed_users`)
    await client.query(`
      insert into auth.sessions (id, user_id, created_at, updated_at)
      select gen_random_uuid(), id, now(), now() from seed_users`)
    // Half on Stripe, half on Polar; every status the app knows, mostly active.
    await client.query(
      `insert into public.user_subscriptions (
         user_id, provider, stripe_customer_id, stripe_subscription_id, polar_customer_id,
         polar_subscription_id, polar_product_id, plan_name, status, billing_cycle,
         current_period_start, current_period_end, last_event_at)
       select id,
              case when n % 2 = 0 then 'stripe' else 'polar' end,
              case when n % 2 = 0 then 'cus_seed_' || n end,
              case when n % 2 = 0 then 'sub_seed_' || n end,
              case when n % 2 = 1 then gen_random_uuid()::text end,
              case when n % 2 = 1 then gen_random_uuid()::text end,
              case when n % 2 = 1 then gen_random_uuid()::text end,
              case when n % 3 = 0 then 'Pro' else 'Starter' end,
              (array['active','active','active','trialing','past_due','canceled'])[1 + n % 6],
              case when n % 4 = 0 then 'year' else 'month' end,
              now() - interval '10 days', now() + interval '20 days', now() - interval '10 days'
       from seed_users where n <= $1::int`,
      [BIG_DATA.subscriptions],
    )
    // Payments: the other users' spread over them, then the reader's long history.
    await client.query(
      `insert into public.payment_history (
         user_id, provider, provider_payment_id,
         amount, currency, status, description, created_at, updated_at)
       select u.id,
              case when u.n % 2 = 0 then 'stripe' else 'polar' end,
              case when u.n % 2 = 0 then 'in_seed_' || g else gen_random_uuid()::text end,
              case when g % 50 = 0 then -1900 else 1900 end, 'usd',
              case when g % 50 = 0 then 'refunded' else 'succeeded' end,
              'Starter plan', now() - (g % 1000) * interval '1 day', now()
       from generate_series(1, $1::int) g
       join seed_users u on u.n = 1 + g % $2::int`,
      [others, BIG_DATA.users],
    )
    await client.query(
      `insert into public.payment_history (
         user_id, provider, provider_payment_id, amount, currency, status, description,
         created_at, updated_at)
       select $1::uuid, 'stripe', 'in_seed_reader_' || g, 1900, 'usd', 'succeeded',
              'Starter plan', now() - interval '400 days' - g * interval '1 hour', now()
       from generate_series(1, $2::int) g`,
      [readerId, readerExtra],
    )
    await client.query(
      `insert into public.webhook_events (provider, event_id, event_type, occurred_at, received_at)
       select case when g % 2 = 0 then 'stripe' else 'polar' end, 'evt_seed_' || g,
              'invoice.payment_succeeded', now() - (g % 1000) * interval '1 day', now()
       from generate_series(1, $1::int) g`,
      [BIG_DATA.ledgerEvents],
    )
    // The trigger that keeps payment_totals did not run (replica): total them once here.
    await client.query(`
      insert into public.payment_totals (user_id, total)
      select user_id, count(*) from public.payment_history group by user_id
      on conflict (user_id) do update set total = excluded.total`)
    await client.query('commit')
    // As autovacuum would do soon after such a load, but before the measurements rather than
    // during them: statistics, the visibility map (index-only scans), then a checkpoint.
    await client.query(
      'vacuum (analyze) auth.users, auth.sessions, public.user_profiles, public.user_subscriptions, public.payment_history, public.payment_totals, public.webhook_events',
    )
    await client.query('checkpoint')
    const { rows } = await client.query<Record<string, number>>(
      `select (select count(*)::int from auth.users) as users,
              (select count(*)::int from public.user_subscriptions) as subscriptions,
              (select count(*)::int from public.payment_history) as payments,
              (select count(*)::int from public.payment_history where user_id = $1) as "readerPayments",
              (select count(*)::int from public.webhook_events) as "ledgerEvents"`,
      [readerId],
    )
    return { seconds: Math.round((Date.now() - started) / 100) / 10, rows: rows[0] }
  } catch (error) {
    await client.query('rollback').catch(() => {})
    throw error
  } finally {
    await client.end()
  }
}
