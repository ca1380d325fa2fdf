/*
  The ledger functions keep one code path for every provider; where providers differ, one
  row of `billing_provider_rules` says how (docs/webhooks.md, "Providers in the ledger"). A
  new provider's migration adds its row beside its columns, and no ledger function changes.

  - `subscription_user`, `payment_user`: where a subscription or payment event's user is
    found, tried in order: `user_id` is the user the event names (checked by the app), any
    other entry a column of user_subscriptions whose holder of the event's value under that
    key is the user (Stripe: the subscription's, else the customer's holder; Polar: the
    holder of an order's subscription first, as the spec says).
  - `payment_row`: the function writing a payment's row, `(p_payment jsonb) returns boolean`
    (true: written): a Stripe invoice's one row, a paid one replacing a failed one; a Polar
    order's row per status, a refund's keeping the largest refunded total. Null: the
    provider records no payments.
  - `payment_change_events`, `payment_change`: events (a LIKE pattern) that change a payment
    already recorded instead, and the function doing so, `(p_change jsonb) returns text`
    (Stripe's refunds and disputes of a charge, `record_stripe_charge`).

  Replaces `apply_subscription_event`, `record_payment_event` (as
  20261128030000_money_exactly.sql) and `record_payment_failure` (as
  20261126100000_one_round_trip.sql), whose per-provider branches become the rows below;
  `stripe_customer_user` and `polar_subscription_user` become `ledger_user`.

  Grants as tests/db/privileges.test.ts expects; the lookups' plans in tests/db/query-plans.test.ts.
*/
create table public.billing_provider_rules (
  provider text primary key,
  subscription_user text[] not null default '{user_id}',
  payment_user text[] not null default '{user_id}',
  payment_row text,
  payment_change_events text,
  payment_change text
);
alter table public.billing_provider_rules enable row level security;
revoke all on public.billing_provider_rules from public, anon, authenticated, service_role;

-- A Polar order's row: one per order and status; a later (partial) refund event carries the refunded total.
create function public.record_polar_order_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.payment_history (
    user_id, provider, polar_subscription_id, polar_order_id, amount, currency, status,
    description, invoice_url, created_at)
  select r.user_id, r.provider, r.polar_subscription_id, r.polar_order_id, r.amount,
    lower(r.currency), r.status, r.description, r.invoice_url, coalesce(r.created_at, now())
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict (polar_order_id, status) do update set amount = excluded.amount
    where excluded.status = 'refunded' and excluded.amount < public.payment_history.amount;
  return found;
end
$$;

insert into public.billing_provider_rules values
  ('stripe', '{user_id,stripe_subscription_id}', '{user_id,stripe_customer_id}',
    'record_stripe_invoice_row', 'charge.%', 'record_stripe_charge'),
  ('polar', '{user_id}', '{polar_subscription_id,user_id}', 'record_polar_order_row', null, null);

-- The user an event belongs to, by its provider's rule (`p_keys`); null when none is found.
create function public.ledger_user(p_keys text[], p_named uuid, p_data jsonb) returns uuid
language plpgsql stable set search_path = '' as $$
declare
  v_key text;
  v_user uuid;
begin
  foreach v_key in array coalesce(p_keys, '{user_id}') loop
    if v_key = 'user_id' then
      v_user := p_named;
    elsif p_data ->> v_key is not null then
      execute format('select user_id from public.user_subscriptions where %I = $1 limit 1', v_key)
        into v_user using p_data ->> v_key;
    end if;
    if v_user is not null then
      return v_user;
    end if;
  end loop;
  return null;
end
$$;

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
  p_user_id := public.ledger_user(
    (select subscription_user from public.billing_provider_rules where provider = p_provider),
    p_user_id, p_fields);
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

  -- A second live subscription while the row holds a live one is a duplicate (a user paying
  -- twice: one made in the provider's dashboard, say); the row stays on the one in use. A
  -- user cannot start a checkout while the row is live, so a new subscription's events come
  -- after the old one's end was applied.
  if p_fields ? v_sub_key and v_old_sub is not null and v_old_sub <> p_fields ->> v_sub_key
     and v_row.status in ('active', 'trialing', 'past_due')
     and p_fields ->> 'status' in ('active', 'trialing', 'past_due') then
    return 'duplicate_subscription';
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
    return 'no_user';
  end if;
  execute format('select public.%I($1)', v_rules.payment_row) into v_written
    using p_payment || jsonb_build_object('user_id', v_user);
  return case when v_written then 'applied' else 'exists' end;
end
$$;

create or replace function public.record_payment_failure(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_data jsonb, p_payment jsonb default null
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rules public.billing_provider_rules;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  select * into v_rules from public.billing_provider_rules where provider = p_provider;
  p_user_id := public.ledger_user(v_rules.payment_user, p_user_id, p_payment);
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return 'no_user';
  end if;
  perform public.note_payment_failure(p_user_id, p_occurred_at, (p_data ->> 'retry_at')::timestamptz);
  if p_payment is not null then
    execute format('select public.%I($1)', v_rules.payment_row)
      using p_payment || jsonb_build_object('user_id', p_user_id, 'status', 'failed');
  end if;
  perform public.enqueue_notification(
    p_user_id, 'payment_failed', p_data, null,
    'payment_failed:' || p_provider || ':' || coalesce(p_data ->> 'invoice_id', p_event_id)
      || ':' || coalesce(p_data ->> 'attempt', p_event_id));
  return 'notified';
end
$$;

drop function public.stripe_customer_user(text);
drop function public.polar_subscription_user(text);
revoke all on function
  public.record_polar_order_row(jsonb),
  public.ledger_user(text[], uuid, jsonb)
from public, anon, authenticated, service_role;
