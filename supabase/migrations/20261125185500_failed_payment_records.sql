/*
  Failed payments in the billing history (docs/decisions/0013-failed-payments.md).

  A failed Stripe invoice is one transaction: its ledger row, its billing-history row
  (status 'failed') and its payment-failed mail (docs/notifications.md). The row stays one
  per invoice: when the invoice is paid later, `invoice.payment_succeeded` turns that row
  into the payment (and its receipt is queued); a failure that arrives after the payment
  (webhooks are not ordered) changes nothing.

  - `record_stripe_invoice_row` is the one upsert of an invoice's row (one row per invoice:
    a payment replaces a failure, never the other way round), used by `record_payment_event`
    and `record_payment_failure`.
  - `record_payment_failure` records a failed payment: the ledger row, the failed row
    (`p_payment`, null: none to record) and the mail (`enqueue_notification`, in the outbox
    migration).
  - The receipt trigger also fires when a failed row turns into a payment.
  - One wording for both providers: "<plan> payment" (app/billing/payment-description.ts);
    Stripe rows written before read "<plan> subscription payment".

  Grants as tests/db/privileges.test.ts expects.
*/
create or replace function public.record_stripe_invoice_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
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
  return found;
end
$$;

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
  A failed payment (Stripe invoice.payment_failed): the ledger row, the failed invoice's
  billing-history row (`p_payment`, when given) and the mail, in one transaction. 'notified',
  'duplicate' (ledger) or 'no_user'. One mail per invoice and attempt (`p_data ->> 'attempt'`).
*/
create function public.record_payment_failure(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_data jsonb, p_payment jsonb default null
) returns text
language plpgsql security definer set search_path = '' as $$
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return 'no_user';
  end if;
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

-- A receipt when a failed invoice is paid later (the row turns into the payment).
create trigger payment_history_receipt_when_paid after update of status on public.payment_history
  for each row when (old.status = 'failed' and new.status in ('paid', 'succeeded'))
  execute function public.queue_payment_receipt();

revoke all on function
  public.record_stripe_invoice_row(jsonb),
  public.record_payment_failure(text, text, text, timestamptz, uuid, jsonb, jsonb)
from public, anon, authenticated, service_role;

grant execute on function
  public.record_payment_failure(text, text, text, timestamptz, uuid, jsonb, jsonb)
to service_role;

update public.payment_history
  set description = left(description, length(description) - length(' subscription payment')) || ' payment'
  where provider = 'stripe' and description like '% subscription payment';
