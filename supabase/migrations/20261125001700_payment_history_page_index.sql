-- The billing page reads one page of a user's payments, newest first, ordered by
-- (created_at desc, id desc) (`billing_overview`). The index on (user_id, created_at desc)
-- could not give that order, so with a long history PostgreSQL read and sorted all of the
-- user's rows for every page (10,000 payments: ~7 ms of database time per page load instead
-- of ~2 ms, docs/performance.md, "Cost as data grows"). With the id in the index the page is
-- the first rows of one index range. It also serves everything the old index served (same
-- leading columns), so that one goes.
create index if not exists payment_history_user_created_id_idx
  on public.payment_history (user_id, created_at desc, id desc);
drop index if exists public.payment_history_user_created_idx;


-- How many payments each user has, kept by a trigger, so that the billing page's "page x of
-- y" does not count the user's whole history on every load (10,000 payments: ~3-5 ms of
-- database time per load, growing with the history). Read by billing_overview under RLS
-- (the user's own row); written only by the trigger (security definer).
create table public.payment_totals (
  user_id uuid primary key references auth.users (id) on delete cascade,
  total integer not null default 0 check (total >= 0)
);
alter table public.payment_totals enable row level security;
create policy "Users read their own payment total" on public.payment_totals
  for select to authenticated using ((select auth.uid()) = user_id);
revoke all on table public.payment_totals from public, anon, authenticated, service_role;
grant select on table public.payment_totals to authenticated;
-- The server reads it in the repairs docs/operations.md describes, like the other tables.
grant select, insert, update, delete on table public.payment_totals to service_role;

create or replace function public.track_payment_total() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    update public.payment_totals set total = total - 1 where user_id = old.user_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into public.payment_totals as t (user_id, total) values (new.user_id, 1)
    on conflict (user_id) do update set total = t.total + 1;
  end if;
  return null;
end
$$;
revoke all on function public.track_payment_total() from public, anon, authenticated, service_role;

create trigger payment_history_total after insert or delete or update of user_id
  on public.payment_history for each row execute function public.track_payment_total();

insert into public.payment_totals (user_id, total)
select user_id, count(*) from public.payment_history group by user_id
on conflict (user_id) do update set total = excluded.total;

-- The planner cannot know how many payments the caller has (the user id comes from the JWT
-- at run time), so it estimates the average (a handful) and may still choose to fetch them
-- all and sort, which is cheap for a handful and slow for a long history. The function runs
-- with sorting disabled (`set enable_sort = off`, for this function's statements only), so
-- the page always comes in index order. The total comes from payment_totals; the function
-- is otherwise the same (20261123000200_billing_overview.sql). tests/db/query-plans.test.ts
-- checks the plan.
create or replace function public.billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' set enable_sort = off as $$
  with me as (
    select auth.uid() as id
  ), counted as (
    select coalesce((
      select t.total from public.payment_totals t where t.user_id = (select id from me)
    ), 0) as total
  ), shown as (
    select greatest(1, least(
      coalesce(p_page, 1),
      ceil((select total from counted)::numeric / greatest(p_page_size, 1))::int
    )) as page
  )
  select jsonb_build_object(
    'subscription', (
      select to_jsonb(s) from public.user_subscriptions s where s.user_id = (select id from me)
    ),
    'payments', coalesce((
      select jsonb_agg(to_jsonb(p) order by p.created_at desc, p.id desc)
      from (
        select id, provider, amount, currency, status, description, invoice_url, created_at
        from public.payment_history
        where user_id = (select id from me)
        order by created_at desc, id desc
        limit greatest(p_page_size, 1)
        offset ((select page from shown) - 1) * greatest(p_page_size, 1)
      ) p
    ), '[]'::jsonb),
    'total', (select total from counted),
    'page', (select page from shown)
  )
$$;

