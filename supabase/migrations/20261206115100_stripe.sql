/*
  Stripe (docs/stripe.md): its columns, its payment rows, its catalogue and its rules row.
  Privileges as tests/db/privileges.test.ts expects.
*/

alter table public.user_subscriptions
  add column stripe_customer_id text,
  add column stripe_subscription_id text;
create index user_subscriptions_stripe_subscription_idx on public.user_subscriptions (stripe_subscription_id);
create index user_subscriptions_stripe_customer_idx on public.user_subscriptions (stripe_customer_id);

-- One row per invoice: a failed invoice's row becomes the payment when it is paid.
create unique index payment_history_stripe_invoice_key on public.payment_history (provider_payment_id)
  where provider = 'stripe';

-- The card of the subscription's last payment, as Stripe's invoice payment names it (brand and
-- last 4 digits, nothing more), for billing's "Visa •••• 4242".
alter table public.user_subscriptions
  add column card_brand text,
  add column card_last4 text check (card_last4 ~ '^[0-9]{4}$');

-- An invoice's one row: a payment replaces a failure, never the other way round; the card
-- that paid it becomes the subscription's.
create function public.record_stripe_invoice_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_written boolean;
begin
  insert into public.payment_history (
    user_id, provider, provider_payment_id, provider_charge_id, amount, currency, status,
    description, invoice_url, created_at)
  select r.user_id, r.provider, r.provider_payment_id, r.provider_charge_id, r.amount,
    lower(r.currency), r.status, r.description, r.invoice_url, coalesce(r.created_at, now())
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict (provider_payment_id) where provider = 'stripe' do update set
    status = excluded.status,
    amount = excluded.amount,
    provider_charge_id = excluded.provider_charge_id,
    invoice_url = coalesce(excluded.invoice_url, public.payment_history.invoice_url),
    description = excluded.description
    where public.payment_history.status = 'failed' and excluded.status <> 'failed';
  v_written := found;
  if v_written and p_payment #>> '{card,last4}' is not null then
    update public.user_subscriptions set card_brand = p_payment #>> '{card,brand}',
      card_last4 = p_payment #>> '{card,last4}'
    where user_id = (p_payment ->> 'user_id')::uuid;
  end if;
  return v_written;
end
$$;

/*
  Refunds and disputes of a charge change the payment row of its PaymentIntent: the largest
  refunded total wins (events are not ordered), and a closed dispute is never replaced by an
  open one. No such row: 'no_payment'.
*/
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
    and p.provider_charge_id = p_charge ->> 'provider_charge_id'
    and p.status <> 'failed';
  return case when found then 'applied' else 'no_payment' end;
end
$$;

-- The catalogue the plans map to (`npm run stripe:sync-products`). The server's alone.
create table public.stripe_products (
  stripe_price_id text primary key,
  stripe_product_id text not null,
  plan_key text not null,
  name text not null,
  amount bigint not null,
  currency text not null,
  billing_interval text not null,
  active boolean not null default true,
  updated_at timestamptz not null default now()
);
create trigger stripe_products_updated_at before update on public.stripe_products
  for each row execute function public.set_updated_at();
alter table public.stripe_products enable row level security;

-- A subscription's user: the one named, else its holder; an invoice's: the one named, else
-- the customer's holder. A failed payment mails per attempt (invoice.payment_failed).
insert into public.billing_provider_rules
  (provider, subscription_user, payment_user, subscription_columns, payment_row,
   payment_change_events, payment_change)
values ('stripe', '{user_id,stripe_subscription_id}', '{user_id,stripe_customer_id}',
  '{stripe_customer_id,stripe_subscription_id}', 'record_stripe_invoice_row', 'charge.%',
  'record_stripe_charge');

revoke all on table public.stripe_products from public, anon, authenticated, service_role;
grant select, insert, update, delete on table public.stripe_products to service_role;
revoke all on function public.record_stripe_invoice_row(jsonb), public.record_stripe_charge(jsonb)
  from public, anon, authenticated, service_role;
