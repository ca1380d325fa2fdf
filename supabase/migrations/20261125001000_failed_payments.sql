/*
  Failed payments in the billing history (docs/decisions/0013-failed-payments.md).

  - A Stripe invoice whose payment failed (`invoice.payment_failed`) gets its
    payment_history row with status 'failed'. The row is still one per invoice: when the
    invoice is paid later, `invoice.payment_succeeded` turns that row into the payment; a
    failure that arrives after the payment (webhooks are not ordered) changes nothing.
  - One wording for both providers: "<plan> payment" (app/billing/payment-description.ts);
    rows written before read "<plan> subscription payment".

  create or replace keeps the function's owner and grants (tests/db/privileges.test.ts).
  Idempotent.
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
  if p_provider = 'stripe' then
    -- One row per invoice: a payment replaces a failure, never the other way round.
    insert into public.payment_history (
      user_id, provider, stripe_invoice_id, stripe_payment_intent_id, amount, currency, status,
      description, invoice_url, created_at)
    select r.user_id, r.provider, r.stripe_invoice_id, r.stripe_payment_intent_id, r.amount,
      lower(r.currency), r.status, r.description, r.invoice_url, coalesce(r.created_at, now())
    from jsonb_populate_record(null::public.payment_history, p_payment) r
    on conflict (stripe_invoice_id) do update set
      status = excluded.status,
      amount = excluded.amount,
      stripe_payment_intent_id = excluded.stripe_payment_intent_id,
      invoice_url = coalesce(excluded.invoice_url, public.payment_history.invoice_url),
      description = excluded.description
      where public.payment_history.status = 'failed' and excluded.status <> 'failed';
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

update public.payment_history
  set description = left(description, length(description) - length(' subscription payment')) || ' payment'
  where provider = 'stripe' and description like '% subscription payment';
