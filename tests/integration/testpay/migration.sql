-- The test-only provider's migration, as a new provider's own would be: its id columns
-- (`<provider>_customer_id`, `<provider>_subscription_id`), its id in the provider checks and
-- its rules for the ledger: an event naming no user belongs to its subscription's holder.
alter table public.user_subscriptions
  add column testpay_customer_id text,
  add column testpay_subscription_id text,
  drop constraint user_subscriptions_provider_check,
  add constraint user_subscriptions_provider_check
    check (provider in ('stripe', 'polar', 'testpay'));
create index user_subscriptions_testpay_subscription_idx
  on public.user_subscriptions (testpay_subscription_id);
alter table public.webhook_events
  drop constraint webhook_events_provider_check,
  add constraint webhook_events_provider_check check (provider in ('stripe', 'polar', 'testpay'));
insert into public.billing_provider_rules (provider, subscription_user)
  values ('testpay', '{user_id,testpay_subscription_id}');
