/*
  Money read the same everywhere (docs/webhooks.md, "Payments"):

  - A Polar refund changes its order's row, as a Stripe refund changes its invoice's:
    `amount_refunded` is the largest refunded total received (refund events are not ordered),
    and an `order.refunded` arriving before `order.paid` writes the order's row itself. The
    separate negative `refunded` rows written so far fold into their orders' rows.
  - A refund's mail names that refund's own amount, the refunded total and the payment.
  - A plan change's mail carries the period's start and the change's time, and a resume's
    mail this period's last change, so each works out the next invoice as the plan change
    page did (`nextInvoice`, app/billing/plans.ts).
*/
update public.payment_history p set amount_refunded = greatest(p.amount_refunded, -r.amount)
from public.payment_history r
where p.provider = 'polar' and r.provider = 'polar' and r.status = 'refunded' and r.amount < 0
  and p.polar_order_id = r.polar_order_id and p.status = 'succeeded';
delete from public.payment_history r
where r.provider = 'polar' and r.status = 'refunded' and r.amount < 0
  and exists (select 1 from public.payment_history p
    where p.polar_order_id = r.polar_order_id and p.status = 'succeeded');

create or replace function public.record_polar_order_row(p_payment jsonb) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.payment_history (
    user_id, provider, polar_subscription_id, polar_order_id, amount, currency, status,
    description, invoice_url, created_at, amount_refunded)
  select r.user_id, r.provider, r.polar_subscription_id, r.polar_order_id, r.amount,
    lower(r.currency), r.status, r.description, r.invoice_url, coalesce(r.created_at, now()),
    coalesce(r.amount_refunded, 0)
  from jsonb_populate_record(null::public.payment_history, p_payment) r
  on conflict (polar_order_id, status) do update set amount_refunded = excluded.amount_refunded
    where excluded.amount_refunded > public.payment_history.amount_refunded;
  return found;
end
$$;

create or replace function public.queue_refund_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_before bigint := case when tg_op = 'INSERT' then 0 else old.amount_refunded end;
begin
  if new.amount_refunded > v_before then
    perform public.enqueue_notification(
      new.user_id, 'payment_refunded',
      jsonb_build_object('payment_id', new.id, 'amount', new.amount_refunded - v_before,
        'refunded_total', new.amount_refunded, 'paid', new.amount, 'currency', new.currency,
        'description', new.description),
      null, 'payment_refunded:' || new.id || ':' || new.amount_refunded);
  end if;
  return null;
end
$$;

create or replace function public.queue_subscription_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_was_live boolean := old.status in ('active', 'trialing', 'past_due', 'unpaid', 'paused');
  v_is_live boolean := new.status in ('active', 'trialing', 'past_due');
  v_will_end boolean := new.cancel_at_period_end or new.cancel_at is not null;
  v_would_end boolean := old.cancel_at_period_end or old.cancel_at is not null;
begin
  if new.status = 'canceled' and old.status is distinct from 'canceled' and v_was_live then
    perform public.enqueue_notification(new.user_id, 'subscription_ended', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'ended_at', coalesce(new.canceled_at, now())));
  elsif v_is_live and v_will_end and not v_would_end then
    perform public.enqueue_notification(new.user_id, 'subscription_canceled', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'ends_at', coalesce(new.cancel_at, new.current_period_end)));
  elsif v_is_live and v_was_live and v_would_end and not v_will_end then
    -- With this period's last plan change, whose difference the next invoice still carries.
    perform public.enqueue_notification(new.user_id, 'subscription_resumed', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'billing_cycle', new.billing_cycle, 'next_charge_at', new.current_period_end) || coalesce((
      select jsonb_build_object('old_plan', o.data -> 'old_plan', 'period_start',
        o.data -> 'period_start', 'changed_at', o.data -> 'changed_at')
      from public.notification_outbox o
      where o.user_id = new.user_id and o.kind = 'plan_changed'
        and (o.data ->> 'changed_at')::timestamptz >= new.current_period_start
      order by o.created_at desc limit 1), '{}'));
  end if;
  -- A name filled in later (Polar's placeholder for a product without one) is no change.
  if v_is_live and v_was_live and old.plan_name is not null and new.plan_name is not null
     and old.plan_name <> 'Unknown Plan' and old.plan_name is distinct from new.plan_name then
    perform public.enqueue_notification(new.user_id, 'plan_changed', jsonb_build_object(
      'old_plan', old.plan_name, 'plan_name', new.plan_name, 'provider', new.provider,
      'billing_cycle', new.billing_cycle, 'next_charge_at', new.current_period_end,
      'period_start', new.current_period_start, 'changed_at', new.last_event_at));
  end if;
  if new.provider = 'polar' and new.status = 'past_due' and old.status is distinct from 'past_due' then
    perform public.enqueue_notification(new.user_id, 'payment_failed', jsonb_build_object(
      'provider', 'polar', 'plan_name', new.plan_name));
  end if;
  return null;
end
$$;
