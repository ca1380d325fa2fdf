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

/*
  An order's row, or its refund's (a negative row, as the spec says), which a later (partial)
  refund event raises to the refunded total. The paid order's row carries that total too
  (`amount_refunded`, as a Stripe payment's), so the billing page and the refund mail read a
  refund on its payment for both providers; an order paid after its refund takes it on.
*/
-- A renewal's order is pending while it is charged, failed when the subscription falls past
-- due (fail_pending_payments: Polar sends nothing else for a declined renewal), then the
-- payment itself when the order is paid.
create function public.record_polar_order_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_row public.payment_history := jsonb_populate_record(null::public.payment_history, p_payment);
  v_written boolean;
begin
  if v_row.status = 'pending' then
    insert into public.payment_history (
      user_id, provider, provider_payment_id, amount, currency, status, description, created_at)
    select v_row.user_id, v_row.provider, v_row.provider_payment_id, v_row.amount,
      lower(v_row.currency), v_row.status, v_row.description, coalesce(v_row.created_at, now())
    where not exists (select 1 from public.payment_history p
      where p.provider = 'polar' and p.provider_payment_id = v_row.provider_payment_id);
    return found;
  end if;
  if v_row.status = 'succeeded' then
    update public.payment_history p set status = 'succeeded', amount = v_row.amount
    where p.provider = 'polar' and p.provider_payment_id = v_row.provider_payment_id
      and p.status in ('pending', 'failed');
    if found then
      return true;
    end if;
  end if;
  insert into public.payment_history (
    user_id, provider, provider_payment_id, amount, currency, status, description, invoice_url,
    created_at, amount_refunded)
  values (v_row.user_id, v_row.provider, v_row.provider_payment_id, v_row.amount,
    lower(v_row.currency), v_row.status, v_row.description, v_row.invoice_url,
    coalesce(v_row.created_at, now()), coalesce((
      select -r.amount from public.payment_history r
      where r.provider = 'polar' and r.provider_payment_id = v_row.provider_payment_id
        and r.status = 'refunded' and v_row.amount > 0), 0))
  on conflict (provider_payment_id, status) where provider = 'polar' do update set
    amount = excluded.amount
    where excluded.status = 'refunded' and excluded.amount < public.payment_history.amount;
  v_written := found;
  if v_written and v_row.status = 'refunded' then
    update public.payment_history p set amount_refunded = -v_row.amount
    where p.provider = 'polar' and p.provider_payment_id = v_row.provider_payment_id
      and p.status <> 'refunded' and p.amount_refunded < -v_row.amount;
  end if;
  return v_written;
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
