/*
  A Polar renewal's payment from its order's creation: pending while it is charged, failed
  when the subscription falls past due (Polar sends nothing else for a declined renewal:
  docs/polar.md), then the payment itself when the order is paid, as a Stripe invoice's row.
*/
create or replace function public.record_polar_order_row(p_payment jsonb) returns boolean
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

-- Falling past due: the payment being charged failed.
create function public.fail_pending_payments() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.payment_history set status = 'failed'
  where user_id = new.user_id and provider = new.provider and status = 'pending';
  return null;
end
$$;
create trigger user_subscriptions_failed_payments after update of status
  on public.user_subscriptions for each row
  when (new.status = 'past_due' and old.status is distinct from 'past_due')
  execute function public.fail_pending_payments();
revoke all on function public.fail_pending_payments() from public, anon, authenticated, service_role;

-- A pending or failed payment paid later gets its receipt.
drop trigger payment_history_receipt_when_paid on public.payment_history;
create trigger payment_history_receipt_when_paid after update of status on public.payment_history
  for each row when (old.status in ('pending', 'failed') and new.status in ('paid', 'succeeded'))
  execute function public.queue_payment_receipt();

/*
  The card of the subscription's last payment, as Stripe's invoice payment names it (brand
  and last 4 digits, nothing more), for billing's "Visa •••• 4242". Polar's webhooks carry
  no card, so its subscriptions have none.
*/
alter table public.user_subscriptions
  add column card_brand text,
  add column card_last4 text check (card_last4 ~ '^[0-9]{4}$');

-- An invoice's one row: a payment replaces a failure, never the other way round; the card
-- that paid it becomes the subscription's.
create or replace function public.record_stripe_invoice_row(p_payment jsonb) returns boolean
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
