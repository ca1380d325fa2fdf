-- Applying webhook events exactly once. Each function records the event in the ledger and
-- applies its effect in ONE transaction (one RPC call = one transaction), so a duplicate or
-- concurrent delivery finds the ledger row and changes nothing, and a failure leaves no
-- ledger row behind, so the provider's retry applies the event.
-- Only the service role may call them.

-- How far along its lifecycle a status is; breaks ties between events of the same second.
create or replace function public.subscription_status_rank(p_status text) returns smallint
language sql immutable set search_path = '' as $$
  select case p_status
    when 'incomplete' then 1
    when 'trialing' then 2
    when 'active' then 3
    when 'past_due' then 4
    when 'paused' then 4
    when 'unpaid' then 5
    when 'incomplete_expired' then 6
    when 'canceled' then 6
    else 0
  end::smallint
$$;

-- Records a provider event in the ledger; false when it was already recorded.
create or replace function public.record_webhook_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.webhook_events (provider, event_id, event_type, occurred_at)
  values (p_provider, p_event_id, p_event_type, p_occurred_at)
  on conflict (provider, event_id) do nothing;
  return found;
end
$$;

/*
  Applies a subscription event to the user's row. p_fields holds the columns the event sets
  (other columns keep their values). Returns:
    'applied'   the row was written
    'duplicate' the event was applied before (ledger)
    'no_user'   no such user; recorded, nothing else changes
    'stale'     an older event than the one the row reflects; recorded, ignored
    'superseded' about an older subscription than the user's live one; recorded, ignored
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
  v_sub_key text := case p_provider when 'stripe' then 'stripe_subscription_id' else 'polar_subscription_id' end;
  v_old_sub text;
  v_new_lifecycle boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
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
  v_old_sub := case p_provider when 'stripe' then v_row.stripe_subscription_id else v_row.polar_subscription_id end;
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
  update public.user_subscriptions set
    provider = v_new.provider,
    stripe_customer_id = v_new.stripe_customer_id,
    stripe_subscription_id = v_new.stripe_subscription_id,
    polar_customer_id = v_new.polar_customer_id,
    polar_subscription_id = v_new.polar_subscription_id,
    polar_product_id = v_new.polar_product_id,
    plan_name = v_new.plan_name,
    status = v_new.status,
    billing_cycle = v_new.billing_cycle,
    current_period_start = v_new.current_period_start,
    current_period_end = v_new.current_period_end,
    cancel_at_period_end = coalesce(v_new.cancel_at_period_end, false),
    cancel_at = v_new.cancel_at,
    canceled_at = v_new.canceled_at,
    trial_start = v_new.trial_start,
    trial_end = v_new.trial_end,
    cancellation_reason = v_new.cancellation_reason,
    cancellation_feedback = v_new.cancellation_feedback,
    cancellation_comment = v_new.cancellation_comment,
    metadata = coalesce(v_new.metadata, '{}'::jsonb),
    last_event_at = p_occurred_at,
    last_event_rank = v_rank
  where user_id = p_user_id;
  return 'applied';
end
$$;

/*
  Records a payment (or refund) event: one payment_history row per Stripe invoice and per
  Polar order and status. Returns 'applied', 'duplicate' (ledger), 'exists' (the row was
  already there from another event about the same invoice/order) or 'no_user'.
*/
create or replace function public.record_payment_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz, p_payment jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid := (p_payment ->> 'user_id')::uuid;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  if v_user is null or not exists (select 1 from auth.users where id = v_user) then
    return 'no_user';
  end if;
  if p_provider = 'polar' and p_payment ->> 'status' = 'refunded' then
    -- One refund row per order; a later (partial) refund event carries the refunded total.
    insert into public.payment_history (
      user_id, provider, polar_subscription_id, polar_order_id, amount, currency, status,
      description, invoice_url, created_at)
    select r.user_id, r.provider, r.polar_subscription_id, r.polar_order_id, r.amount,
      lower(r.currency), r.status, r.description, r.invoice_url, coalesce(r.created_at, now())
    from jsonb_populate_record(null::public.payment_history, p_payment) r
    on conflict (polar_order_id, status) do update set amount = excluded.amount
      where excluded.amount < public.payment_history.amount;
    return case when found then 'applied' else 'exists' end;
  end if;
  insert into public.payment_history (
    user_id, provider, stripe_invoice_id, stripe_payment_intent_id, polar_subscription_id,
    polar_order_id, amount, currency, status, description, invoice_url, created_at)
  select r.user_id, r.provider, r.stripe_invoice_id, r.stripe_payment_intent_id, r.polar_subscription_id,
    r.polar_order_id, r.amount, lower(r.currency), r.status, r.description, r.invoice_url,
    coalesce(r.created_at, now())
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict do nothing;
  return case when found then 'applied' else 'exists' end;
end
$$;

revoke execute on function public.record_webhook_event(text, text, text, timestamptz) from public, anon, authenticated;
revoke execute on function public.apply_subscription_event(text, text, text, timestamptz, uuid, jsonb) from public, anon, authenticated;
revoke execute on function public.record_payment_event(text, text, text, timestamptz, jsonb) from public, anon, authenticated;
grant execute on function public.record_webhook_event(text, text, text, timestamptz) to service_role;
grant execute on function public.apply_subscription_event(text, text, text, timestamptz, uuid, jsonb) to service_role;
grant execute on function public.record_payment_event(text, text, text, timestamptz, jsonb) to service_role;
