/*
  One round trip to the database per signed-in page and per new webhook event
  (docs/performance.md, "Round trips at a distance").

  - `account_summary()`: what the signed-in pages show of the user besides the session, their
    profile and their subscription, in one call. It runs as the caller (security invoker), so
    row-level security decides what it reads, exactly as the table reads did; it names the
    caller's rows with auth.uid() besides. The session check stays apart, with its own grant
    (`session_is_active`, service role); the app sends both at once.
  - `billing_overview` gives each payment's provider references too (the Stripe invoice and
    PaymentIntent, the Polar order), so the billing page's deferred provider lookups need no
    second read (app/billing/deferred-lookups.server.ts).
  - The ledger functions find the user themselves when the event does not name one, in the
    same transaction as the event: a Stripe subscription event by its subscription id, a
    Stripe invoice by its customer id (`p_payment ->> 'stripe_customer_id'`, not a column of
    payment_history). `record_payment_failure` also notes when the payment failed and when
    Stripe retries it (`note_payment_failure`), so a failed payment is one call.

  Grants as tests/db/privileges.test.ts expects; plans checked by tests/db/query-plans.test.ts.
*/
create function public.account_summary()
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
    'profile', (
      select jsonb_build_object(
        'display_name', p.display_name,
        'avatar_path', p.avatar_path,
        'notify_product_updates', p.notify_product_updates,
        'notify_billing', p.notify_billing,
        'notify_security', p.notify_security)
      from public.user_profiles p where p.user_id = (select auth.uid())
    ),
    'subscription', (
      select to_jsonb(s) from public.user_subscriptions s where s.user_id = (select auth.uid())
    )
  )
$$;

revoke execute on function public.account_summary() from public, anon;
grant execute on function public.account_summary() to authenticated;

-- As 20261125001700_payment_history_page_index.sql, with the payments' provider references.
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
        select id, provider, amount, currency, status, description, invoice_url, created_at,
          stripe_invoice_id, stripe_payment_intent_id, polar_order_id
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

-- As 20261122000200_webhook_apply.sql, finding a Stripe subscription's user by its id.
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


-- A Stripe invoice whose subscription names no user: the user holding its customer.
create function public.stripe_customer_user(p_customer_id text) returns uuid
language sql stable set search_path = '' as $$
  select user_id from public.user_subscriptions where stripe_customer_id = p_customer_id limit 1
$$;

-- As 20261125185500_failed_payment_records.sql, finding a Stripe invoice's user by its customer.
create or replace function public.record_payment_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz, p_payment jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid := coalesce(
    (p_payment ->> 'user_id')::uuid,
    case when p_provider = 'stripe'
      then public.stripe_customer_user(p_payment ->> 'stripe_customer_id') end);
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  if v_user is null or not exists (select 1 from auth.users where id = v_user) then
    return 'no_user';
  end if;
  p_payment := p_payment || jsonb_build_object('user_id', v_user);
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
  if p_provider = 'stripe' then
    return case when public.record_stripe_invoice_row(p_payment) then 'applied' else 'exists' end;
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

/*
  As 20261125185500_failed_payment_records.sql, finding the user by the Stripe customer when
  the event names none, and noting when the payment failed and when Stripe retries it
  (`p_data ->> 'retry_at'`; `note_payment_failure` keeps the newest failure).
*/
create or replace function public.record_payment_failure(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_data jsonb, p_payment jsonb default null
) returns text
language plpgsql security definer set search_path = '' as $$
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  if p_user_id is null and p_provider = 'stripe' then
    p_user_id := public.stripe_customer_user(p_payment ->> 'stripe_customer_id');
  end if;
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return 'no_user';
  end if;
  perform public.note_payment_failure(p_user_id, p_occurred_at, (p_data ->> 'retry_at')::timestamptz);
  if p_payment is not null and p_provider = 'stripe' then
    perform public.record_stripe_invoice_row(
      p_payment || jsonb_build_object('user_id', p_user_id, 'status', 'failed'));
  end if;
  perform public.enqueue_notification(
    p_user_id, 'payment_failed', p_data, null,
    'payment_failed:' || p_provider || ':' || coalesce(p_data ->> 'invoice_id', p_event_id)
      || ':' || coalesce(p_data ->> 'attempt', p_event_id));
  return 'notified';
end
$$;

revoke all on function public.stripe_customer_user(text) from public, anon, authenticated, service_role;
