/*
  Polar (docs/polar.md): its columns, its payment rows and its rules row.
  Privileges as tests/db/privileges.test.ts expects.
*/

alter table public.user_subscriptions
  add column polar_customer_id text,
  add column polar_subscription_id text,
  add column polar_product_id text;
create index user_subscriptions_polar_subscription_idx on public.user_subscriptions (polar_subscription_id);

-- One row per order and status: the paid order and its refund are two rows, and a repeated
-- webhook adds neither twice.
create unique index payment_history_polar_order_key on public.payment_history (provider_payment_id, status)
  where provider = 'polar';

-- An order's row; a later (partial) refund event carries the refunded total.
create function public.record_polar_order_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.payment_history (
    user_id, provider, provider_payment_id, amount, currency, status, description, invoice_url,
    created_at)
  select r.user_id, r.provider, r.provider_payment_id, r.amount, lower(r.currency), r.status,
    r.description, r.invoice_url, coalesce(r.created_at, now())
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict (provider_payment_id, status) where provider = 'polar' do update set
    amount = excluded.amount
    where excluded.status = 'refunded' and excluded.amount < public.payment_history.amount;
  return found;
end
$$;

-- An order's user: the holder of its subscription first, as the spec says, else the one it
-- names. Polar says nothing per failed attempt: falling past due mails the subscriber.
insert into public.billing_provider_rules
  (provider, subscription_user, payment_user, subscription_columns, payment_row, past_due_mail)
values ('polar', '{user_id}', '{polar_subscription_id,user_id}',
  '{polar_customer_id,polar_subscription_id,polar_product_id}', 'record_polar_order_row', true);

revoke all on function public.record_polar_order_row(jsonb)
  from public, anon, authenticated, service_role;
