/*
  One live subscription per user across providers, and money for a deleted account named
  (docs/webhooks.md, "One subscription per subscriber").

  - `apply_subscription_event`: the subscription the row holds is the one at the row's own
    provider. An event about any other one, at any provider, never takes the row over while
    it is live: a live one is `duplicate_subscription` (a Stripe and a Polar checkout both
    paid), any other `superseded` (a late event of the user's old subscription elsewhere).
    Before, the checks read the event's provider's column only, so a Polar subscription
    moved a row that was live at Stripe.
  - Both functions answer `deleted_account` instead of `no_user` for money still moving for
    a user who no longer exists: a live subscription, or a payment (a positive amount),
    whose event names that user (an account deleted since). The app logs it at error.

  Replaces both as 20261128031000_provider_rules.sql defined them; grants unchanged.
*/
create or replace function public.apply_subscription_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_fields jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rank smallint := public.subscription_status_rank(p_fields ->> 'status');
  v_live text[] := '{active,trialing,past_due}';
  v_row public.user_subscriptions;
  v_new public.user_subscriptions;
  v_sub_key text := p_provider || '_subscription_id';
  v_held text;
  v_another boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  p_user_id := public.ledger_user(
    (select subscription_user from public.billing_provider_rules where provider = p_provider),
    p_user_id, p_fields);
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return case when p_user_id is not null and p_fields ->> 'status' = any (v_live)
      then 'deleted_account' else 'no_user' end;
  end if;

  -- One row per user; lock it so concurrent events for the same user apply one by one.
  insert into public.user_subscriptions (user_id) values (p_user_id) on conflict (user_id) do nothing;
  select * into v_row from public.user_subscriptions where user_id = p_user_id for update;

  if p_fields ->> 'status' is null then
    v_rank := v_row.last_event_rank;
  end if;
  -- The subscription the row holds: its id at the row's own provider.
  v_held := to_jsonb(v_row) ->> (v_row.provider || '_subscription_id');
  v_another := p_fields ? v_sub_key and v_held is not null
    and (v_row.provider <> p_provider or v_held <> p_fields ->> v_sub_key);
  -- An event about another subscription than the user's ended one starts a new lifecycle:
  -- the same-second rank tie-break (meant for one subscription's events) does not apply.
  if v_row.last_event_at is not null and (
       p_occurred_at < v_row.last_event_at
       or (p_occurred_at = v_row.last_event_at and v_rank < v_row.last_event_rank
           and not (v_another and v_row.status in ('canceled', 'incomplete_expired')))) then
    return 'stale';
  end if;

  -- While the row's subscription is live, another one never takes the row over: a second
  -- live one (a user paying twice, at any provider) is a duplicate; any other event about
  -- one (a late event of a previous subscription) must not end the one in use.
  if v_another and v_row.status = any (v_live) then
    return case when p_fields ->> 'status' = any (v_live)
      then 'duplicate_subscription' else 'superseded' end;
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

create or replace function public.record_payment_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz, p_payment jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rules public.billing_provider_rules;
  v_user uuid;
  v_outcome text;
  v_written boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  select * into v_rules from public.billing_provider_rules where provider = p_provider;
  if p_event_type like v_rules.payment_change_events then
    execute format('select public.%I($1)', v_rules.payment_change) into v_outcome using p_payment;
    return v_outcome;
  end if;
  v_user := public.ledger_user(v_rules.payment_user, (p_payment ->> 'user_id')::uuid, p_payment);
  if v_user is null or not exists (select 1 from auth.users where id = v_user) then
    return case when v_user is not null and (p_payment ->> 'amount')::numeric > 0
      then 'deleted_account' else 'no_user' end;
  end if;
  execute format('select public.%I($1)', v_rules.payment_row) into v_written
    using p_payment || jsonb_build_object('user_id', v_user);
  return case when v_written then 'applied' else 'exists' end;
end
$$;
