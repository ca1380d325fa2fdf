/*
  Rate-limit counters shared by every app instance (RATE_LIMIT_STORE=postgres): one row per key,
  the hits in the current fixed window and when it ends. A hit rewrites its row; half of each
  page is left free (fillfactor 50) and no column of an index changes, so the rewrite is a HOT
  update pruned without a vacuum. The sweep of ended windows (1 call in 100) needs no index: the
  table holds only the keys of the last window.
*/
create table public.rate_limits (
  key text primary key check (char_length(key) between 1 and 200),
  count integer not null check (count >= 0),
  reset_at timestamptz not null
) with (fillfactor = 50);
alter table public.rate_limits enable row level security;

-- One hit on one key: {allowed, remaining, retry_after_seconds}.
create function public.rate_limit_hit(p_key text, p_limit integer, p_window_ms integer)
returns jsonb
language plpgsql security definer set search_path = '' as $$
declare
  v_now timestamptz := clock_timestamp();
  v_count integer;
  v_reset timestamptz;
begin
  if p_key is null or p_limit is null or p_limit < 1 or p_window_ms is null or p_window_ms < 1 then
    raise exception 'rate_limit_hit: invalid arguments' using errcode = '22023';
  end if;
  insert into public.rate_limits as r (key, count, reset_at)
  values (p_key, 1, v_now + make_interval(secs => p_window_ms / 1000.0))
  on conflict (key) do update set
    count = case when r.reset_at <= v_now then 1 else r.count + 1 end,
    reset_at = case when r.reset_at <= v_now then excluded.reset_at else r.reset_at end
  returning r.count, r.reset_at into v_count, v_reset;

  if random() < 0.01 then
    delete from public.rate_limits where reset_at < v_now - interval '1 minute';
  end if;

  return jsonb_build_object(
    'allowed', v_count <= p_limit,
    'remaining', greatest(0, p_limit - v_count),
    'retry_after_seconds', case
      when v_count <= p_limit then 0
      else greatest(1, ceil(extract(epoch from (v_reset - v_now))))::integer
    end
  );
end
$$;

/*
  Every counter of a request in one statement: one hit on each p_keys[i] against p_limits[i]
  per window of p_window_ms[i], the verdicts in order (the app's RateLimitResult). A key given
  twice counts twice. Rows are locked in key order, so two calls never wait in a cycle.
*/
create function public.rate_limit_hits(
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
