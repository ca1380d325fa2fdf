-- Rate-limit counters shared by every app instance (RATE_LIMIT_STORE=postgres).
-- One row per key (for example "auth:sign-in:ip:198.51.100.7"): the hits counted in the
-- current fixed window and when that window ends. Only the service role touches it, and
-- only through rate_limit_hit below.

create table if not exists public.rate_limits (
  key text primary key check (char_length(key) between 1 and 200),
  count integer not null check (count >= 0),
  reset_at timestamptz not null
);

create index if not exists rate_limits_reset_at_idx on public.rate_limits (reset_at);

-- No policies: the API roles see nothing; the service role bypasses RLS.
alter table public.rate_limits enable row level security;
revoke all on public.rate_limits from anon, authenticated;

/*
  Counts one hit against `p_key` in fixed windows of `p_window_ms` and returns the verdict
  as {allowed, remaining, retry_after_seconds}. One statement upserts the row (starting a
  new window when the old one has ended), so concurrent hits on any instance are each
  counted exactly once: the row lock serialises them. Now and then (about 1 call in 100) it
  also deletes windows that ended more than a minute ago, so the table stays small.
*/
create or replace function public.rate_limit_hit(p_key text, p_limit integer, p_window_ms integer)
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

revoke execute on function public.rate_limit_hit(text, integer, integer) from public, anon, authenticated;
grant execute on function public.rate_limit_hit(text, integer, integer) to service_role;
