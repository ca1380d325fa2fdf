/*
  One round trip per Polar order event too (docs/performance.md, "Round trips at a distance"):
  `record_payment_event` finds a Polar order's user itself, in the same transaction as the
  event, as it already did for a Stripe invoice. The user holding the order's subscription
  (`p_payment ->> 'polar_subscription_id'`) comes first, as the spec says; the user the order
  names (`p_payment ->> 'user_id'`: its metadata, checked by the app against the customer's
  binding) is the fallback. Before, the app looked the subscription's user up with a call of
  its own and then made this one. Otherwise as 20261126100000_one_round_trip.sql.

  Grants as tests/db/privileges.test.ts expects; plans checked by tests/db/query-plans.test.ts.
*/

-- A Polar order's subscription: the user holding it.
create function public.polar_subscription_user(p_subscription_id text) returns uuid
language sql stable set search_path = '' as $$
  select user_id from public.user_subscriptions where polar_subscription_id = p_subscription_id limit 1
$$;

revoke all on function public.polar_subscription_user(text) from public, anon, authenticated, service_role;

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
