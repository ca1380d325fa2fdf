-- The test-only provider's migration, as a new provider's own would be: its columns, its
-- payment rows (one per payment id), and its rules row (an event naming no user belongs to its
-- subscription's holder).
alter table public.user_subscriptions
  add column testpay_customer_id text,
  add column testpay_subscription_id text;
create index user_subscriptions_testpay_subscription_idx
  on public.user_subscriptions (testpay_subscription_id);
create unique index payment_history_testpay_payment_key on public.payment_history (provider_payment_id)
  where provider = 'testpay';

create function public.record_testpay_payment(p_payment jsonb) returns boolean
language sql security definer set search_path = '' as $$
  insert into public.payment_history (
    user_id, provider, provider_payment_id, amount, currency, status, description, created_at)
  select r.user_id, r.provider, r.provider_payment_id, r.amount, lower(r.currency), r.status,
    r.description, coalesce(r.created_at, now())
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict (provider_payment_id) where provider = 'testpay' do nothing
  returning true
$$;
revoke all on function public.record_testpay_payment(jsonb)
  from public, anon, authenticated, service_role;

insert into public.billing_provider_rules
  (provider, subscription_user, payment_user, subscription_columns, payment_row)
values ('testpay', '{user_id,testpay_subscription_id}', '{user_id,testpay_subscription_id}',
  '{testpay_customer_id,testpay_subscription_id}', 'record_testpay_payment');
