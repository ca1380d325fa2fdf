/*
  Money, exactly (docs/webhooks.md, "Payments" and "One subscription per subscriber").

  - Refunds and disputes of a Stripe payment (`charge.refunded`, `charge.dispute.created` /
    `closed`) change the payment row of the charge's PaymentIntent, through
    `record_payment_event` (the ledger row and the change in one transaction):
    `amount_refunded` keeps the largest refunded total Stripe sent (events are not ordered),
    the status says `refunded` (in full) or `partially_refunded`; `dispute_status` keeps
    Stripe's dispute status, and a closed one (won, lost, warning_closed, prevented) is never
    replaced by an open one. No row for the PaymentIntent: `no_payment`, nothing changes.
  - A refund mails the subscriber (`payment_refunded`, through the outbox, in the same
    transaction): a Stripe row whose refunded total grows, a Polar refund row written or
    grown. One mail per refunded total.
  - `apply_subscription_event` refuses a second live subscription of the same provider while
    the user's row holds a live one (`duplicate_subscription`, see the function).
  - An account's confirmed email change queues `customer_email`: not a mail, the deliverer
    gives the new address to the user's Stripe and Polar customers (retried like a mail).
  - `billing_overview` shows each payment's refunded amount and dispute status.

  Grants as tests/db/privileges.test.ts expects.
*/
alter table public.payment_history
  add column amount_refunded bigint not null default 0 check (amount_refunded >= 0),
  add column dispute_status text;
create index payment_history_payment_intent_idx on public.payment_history (stripe_payment_intent_id)
  where stripe_payment_intent_id is not null;

alter table public.notification_outbox drop constraint notification_outbox_kind_check;
alter table public.notification_outbox add constraint notification_outbox_kind_check check (kind in (
  'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
  'plan_changed', 'subscription_resumed', 'password_changed', 'email_changed',
  'signed_out_everywhere', 'account_deleted', 'attempts_limited', 'payment_refunded',
  'customer_email'));

create function public.record_stripe_charge(p_charge jsonb) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_refunded bigint := coalesce((p_charge ->> 'amount_refunded')::bigint, 0);
  v_dispute text := p_charge ->> 'dispute_status';
  v_closed text[] := array['won', 'lost', 'warning_closed', 'prevented'];
begin
  update public.payment_history p set
    amount_refunded = greatest(p.amount_refunded, v_refunded),
    status = case
      when greatest(p.amount_refunded, v_refunded) = 0 then p.status
      when greatest(p.amount_refunded, v_refunded) >= p.amount then 'refunded'
      else 'partially_refunded' end,
    dispute_status = case
      when v_dispute is null or p.dispute_status = any (v_closed) then p.dispute_status
      else v_dispute end
  where p.provider = 'stripe'
    and p.stripe_payment_intent_id = p_charge ->> 'stripe_payment_intent_id'
    and p.status <> 'failed';
  return case when found then 'applied' else 'no_payment' end;
end
$$;

create or replace function public.record_payment_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz, p_payment jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid := case p_provider
    when 'polar' then coalesce(
      public.polar_subscription_user(p_payment ->> 'polar_subscription_id'),
      (p_payment ->> 'user_id')::uuid)
    else coalesce(
      (p_payment ->> 'user_id')::uuid,
      case when p_provider = 'stripe'
        then public.stripe_customer_user(p_payment ->> 'stripe_customer_id') end)
  end;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  -- A Stripe charge's refund or dispute: the payment row of its PaymentIntent.
  if p_provider = 'stripe' and p_event_type like 'charge.%' then
    return public.record_stripe_charge(p_payment);
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
          amount_refunded, dispute_status,
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

-- A refund's mail: one per refunded total of a payment.
create function public.queue_refund_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_refunded bigint := case when new.provider = 'polar' then -new.amount else new.amount_refunded end;
  v_before bigint := case
    when tg_op = 'INSERT' then 0
    when old.provider = 'polar' then -old.amount
    else old.amount_refunded end;
begin
  if (new.provider = 'stripe' or new.status = 'refunded') and v_refunded > v_before then
    perform public.enqueue_notification(
      new.user_id, 'payment_refunded',
      jsonb_build_object('payment_id', new.id, 'amount', v_refunded, 'currency', new.currency,
        'description', new.description),
      null, 'payment_refunded:' || new.id || ':' || v_refunded);
  end if;
  return null;
end
$$;
create trigger payment_history_refund_notice after insert or update on public.payment_history
  for each row execute function public.queue_refund_notice();

-- A confirmed email change: the providers' customers take the new address (app/billing/customer-email.server.ts).
create function public.queue_customer_email() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if coalesce(old.email, '') <> '' and coalesce(new.email, '') <> ''
     and lower(old.email) <> lower(new.email) then
    perform public.enqueue_notification(new.id, 'customer_email',
      jsonb_build_object('old_email', old.email, 'new_email', new.email), new.email);
  end if;
  return null;
end
$$;
create trigger on_auth_user_email_changed_customers after update of email on auth.users
  for each row when (old.email is distinct from new.email)
  execute function public.queue_customer_email();

revoke all on function
  public.record_stripe_charge(jsonb),
  public.queue_refund_notice(),
  public.queue_customer_email()
from public, anon, authenticated, service_role;
