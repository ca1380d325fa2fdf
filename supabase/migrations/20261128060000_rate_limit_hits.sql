-- Every counter of a request in one statement (decisions/0071), and room on each page for
-- the counters' rewrites.
--
-- A sign-in post counts three keys (client, email, account ceiling): three RPC calls, three
-- transactions, where one does. rate_limit_hits takes the request's keys, limits and windows
-- as arrays and upserts them in one statement; the server sends the counters of every request
-- made in the same event-loop turn together. rate_limit_hit stays for instances of the
-- previous release during a rolling deploy.
--
-- A hit rewrites its row. The rewrite is a HOT update (no index entry) when the page has room
-- and no indexed column changes; the old version is then pruned by the next visit to the page,
-- without a vacuum. Half of each page is left free for that (fillfactor 50). The reset_at index
-- is gone: every new window changed reset_at, so each window's first hit was a non-HOT update
-- with a new index entry, and the sweep below needs no index (it runs 1 call in 100 and the
-- table holds only the keys of the last window).

alter table public.rate_limits set (fillfactor = 50);
drop index if exists public.rate_limits_reset_at_idx;

/*
  Counts one hit on each p_keys[i] against p_limits[i] hits per fixed window of
  p_window_ms[i], and returns the verdicts in order: [{allowed, limit, remaining,
  retryAfterSeconds}, ...] (the app's RateLimitResult). A key given twice counts twice (hits of two requests sent
  together), each hit with its own verdict. Rows are locked in key order, so two calls never
  wait on each other in a cycle.
*/
create or replace function public.rate_limit_hits(
  p_keys text[], p_limits integer[], p_window_ms integer[])
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_now timestamptz := clock_timestamp();
  v_verdicts jsonb;
begin
  if coalesce(cardinality(p_keys), 0) not between 1 and 100
     or cardinality(p_limits) is distinct from cardinality(p_keys)
     or cardinality(p_window_ms) is distinct from cardinality(p_keys)
     or exists (select from unnest(p_keys, p_limits, p_window_ms) as h(k, l, w)
                where k is null or l is null or l < 1 or w is null or w < 1) then
    raise exception 'rate_limit_hits: invalid arguments' using errcode = '22023';
  end if;

  with hits as (
    select h.key, h.lim, h.win, h.ord,
           row_number() over (partition by h.key order by h.ord) as nth,
           count(*) over (partition by h.key) as n
    from unnest(p_keys, p_limits, p_window_ms) with ordinality as h(key, lim, win, ord)
  ), counted as (
    insert into public.rate_limits as r (key, count, reset_at)
    select key, n, v_now + make_interval(secs => win / 1000.0) from hits where nth = 1
    order by key
    on conflict (key) do update set
      count = case when r.reset_at <= v_now then excluded.count else r.count + excluded.count end,
      reset_at = case when r.reset_at <= v_now then excluded.reset_at else r.reset_at end
    returning r.key, r.count, r.reset_at
  ), verdicts as (
    select h.ord, h.lim, c.count - h.n + h.nth as count, c.reset_at
    from hits h join counted c on c.key = h.key
  )
  select jsonb_agg(jsonb_build_object(
           'allowed', count <= lim,
           'limit', lim,
           'remaining', greatest(0, lim - count),
           'retryAfterSeconds', case
             when count <= lim then 0
             else greatest(1, ceil(extract(epoch from (reset_at - v_now))))::integer
           end) order by ord)
    into v_verdicts
    from verdicts;

  if random() < 0.01 then
    delete from public.rate_limits where reset_at < v_now - interval '1 minute';
  end if;
  return v_verdicts;
end
$$;

revoke all on function public.rate_limit_hits(text[], integer[], integer[])
  from public, anon, authenticated, service_role;
grant execute on function public.rate_limit_hits(text[], integer[], integer[]) to service_role;
