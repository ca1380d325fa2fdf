/*
  The ledger's subscription function names no provider: a provider's ids are written to its
  own columns, found by name (`<provider>_customer_id`, `<provider>_subscription_id`, as the
  contract names them), so a new provider needs only its migration adding its columns (and
  its id to the tables' provider checks), not a branch here. Otherwise as
  20261126100000_one_round_trip.sql.
*/
create or replace function public.apply_subscription_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_fields jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rank smallint := public.subscription_status_rank(p_fields ->> 'status');
  v_row public.user_subscriptions;
  v_new public.user_subscriptions;
  v_sub_key text := p_provider || '_subscription_id';
  v_old_sub text;
  v_new_lifecycle boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  -- A Stripe subscription whose metadata names no user: the user already holding it.
  if p_user_id is null and p_provider = 'stripe' then
    select user_id into p_user_id from public.user_subscriptions
     where stripe_subscription_id = p_fields ->> 'stripe_subscription_id' limit 1;
  end if;
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return 'no_user';
  end if;

  -- One row per user; lock it so concurrent events for the same user apply one by one.
  insert into public.user_subscriptions (user_id) values (p_user_id) on conflict (user_id) do nothing;
  select * into v_row from public.user_subscriptions where user_id = p_user_id for update;

  if p_fields ->> 'status' is null then
    v_rank := v_row.last_event_rank;
  end if;
  v_old_sub := to_jsonb(v_row) ->> v_sub_key;
  -- An event about another subscription than the user's ended one starts a new lifecycle:
  -- the same-second rank tie-break (meant for one subscription's events) does not apply.
  v_new_lifecycle := p_fields ? v_sub_key
    and v_old_sub is distinct from p_fields ->> v_sub_key
    and v_row.status in ('canceled', 'incomplete_expired');
  if v_row.last_event_at is not null and (
       p_occurred_at < v_row.last_event_at
       or (p_occurred_at = v_row.last_event_at and v_rank < v_row.last_event_rank and not v_new_lifecycle)) then
    return 'stale';
  end if;

  -- A late event about a previous subscription must not end the user's current, live one.
  if p_fields ? v_sub_key and v_old_sub is not null and v_old_sub <> p_fields ->> v_sub_key
     and v_row.status in ('active', 'trialing', 'past_due')
     and coalesce(p_fields ->> 'status', 'canceled') in ('canceled', 'incomplete_expired', 'unpaid', 'incomplete') then
    return 'superseded';
  end if;

  v_new := jsonb_populate_record(v_row, p_fields);
  -- The provider's own ids by their columns' names (`<provider>_customer_id`,
  -- `<provider>_subscription_id`): one statement for every provider, a new one's too.
  execute format($update$update public.user_subscriptions set
    provider = ($1).provider,
    %1$I = ($1).%1$I,
    %2$I = ($1).%2$I,
    polar_product_id = ($1).polar_product_id,
    plan_name = ($1).plan_name,
    status = ($1).status,
    billing_cycle = ($1).billing_cycle,
    current_period_start = ($1).current_period_start,
    current_period_end = ($1).current_period_end,
    cancel_at_period_end = coalesce(($1).cancel_at_period_end, false),
    cancel_at = ($1).cancel_at,
    canceled_at = ($1).canceled_at,
    trial_start = ($1).trial_start,
    trial_end = ($1).trial_end,
    cancellation_reason = ($1).cancellation_reason,
    cancellation_feedback = ($1).cancellation_feedback,
    cancellation_comment = ($1).cancellation_comment,
    metadata = coalesce(($1).metadata, '{}'::jsonb),
    last_event_at = $3,
    last_event_rank = $4
  where user_id = $2$update$, p_provider || '_customer_id', v_sub_key)
  using v_new, p_user_id, p_occurred_at, v_rank;
  return 'applied';
end
$$;
