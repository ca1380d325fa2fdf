-- Notification mails: a transactional outbox.
--
-- A mail the product sends on its own (receipt, payment failed, subscription canceled or
-- ended, security notices) is a row in public.notification_outbox, written in the SAME
-- transaction as the event that causes it: a payment row and its receipt commit together
-- (a trigger on payment_history), a subscription change and its notice likewise (a trigger
-- on user_subscriptions), a confirmed email change and its notices likewise (a trigger on
-- auth.users). So a crash can never record a payment without its mail, or a mail without
-- its payment. The app delivers the rows later over SMTP (app/notifications/delivery.server.ts):
-- it claims due rows with `claim_notifications` (FOR UPDATE SKIP LOCKED, so two instances
-- never claim the same row), renders each from its kind and data, sends it, and reports
-- with `finish_notification` (sent, skipped by the user's preference, retry later, dead).
-- See docs/notifications.md.

-- Product updates (marketing) are opt-in: off until the user ticks the box. Rows that hold
-- the old default were never a choice (a pre-ticked box is not consent), so they are reset.
alter table public.user_profiles alter column notify_product_updates set default false;
update public.user_profiles set notify_product_updates = false where notify_product_updates;

create table public.notification_outbox (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in (
    'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
    'password_changed', 'email_changed', 'signed_out_everywhere')),
  -- Which preference of user_profiles governs it (checked at delivery, not at enqueue).
  category text not null check (category in ('billing', 'security', 'product_updates')),
  to_address text not null check (char_length(to_address) between 3 and 320),
  -- What the mail is about (ids, plan name, dates); the text is rendered at delivery.
  data jsonb not null default '{}'::jsonb,
  -- One mail per cause: a repeated cause (the same payment) adds nothing.
  dedupe_key text unique,
  -- pending: waiting or being sent; sent; skipped (the user's preference is off);
  -- dead (failed max attempts; visible, re-queued by hand: docs/operations.md).
  status text not null default 'pending' check (status in ('pending', 'sent', 'skipped', 'dead')),
  attempts integer not null default 0 check (attempts >= 0),
  -- When the row is due. A claim moves it forward by the lease, so a deliverer that dies
  -- mid-send leaves the row to be claimed again once the lease is over.
  next_attempt_at timestamptz not null default now(),
  last_error text,
  sent_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index notification_outbox_due_idx on public.notification_outbox (next_attempt_at)
  where status = 'pending';
create index notification_outbox_user_idx on public.notification_outbox (user_id);
create trigger notification_outbox_updated_at before update on public.notification_outbox
  for each row execute function public.set_updated_at();

-- No policies: users never read the outbox; the service role (the server) bypasses RLS.
alter table public.notification_outbox enable row level security;

/*
  Queues one mail for a user, to `p_to` or (null) the user's current address. Returns false
  when nothing was queued: no such user, no address, or a row with the same dedupe key.
*/
create or replace function public.enqueue_notification(
  p_user_id uuid, p_kind text, p_data jsonb, p_to text default null, p_dedupe_key text default null
) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_to text := nullif(trim(p_to), '');
begin
  if v_to is null then
    select u.email into v_to from auth.users u where u.id = p_user_id;
  elsif not exists (select 1 from auth.users u where u.id = p_user_id) then
    return false;
  end if;
  if v_to is null or v_to = '' then
    return false;
  end if;
  insert into public.notification_outbox (user_id, kind, category, to_address, data, dedupe_key)
  values (
    p_user_id, p_kind,
    case when p_kind in ('password_changed', 'email_changed', 'signed_out_everywhere')
      then 'security' else 'billing' end,
    v_to, coalesce(p_data, '{}'::jsonb), p_dedupe_key)
  on conflict (dedupe_key) do nothing;
  return found;
end
$$;

-- A receipt for every payment recorded (not refunds, not zero-amount invoices).
create or replace function public.queue_payment_receipt() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.status in ('paid', 'succeeded') and new.amount > 0 then
    perform public.enqueue_notification(
      new.user_id, 'payment_receipt', jsonb_build_object('payment_id', new.id), null,
      'payment_receipt:' || new.id);
  end if;
  return null;
end
$$;
create trigger payment_history_receipt after insert on public.payment_history
  for each row execute function public.queue_payment_receipt();

/*
  Notices on a subscription change: it was set to end (canceled at period end), it ended
  (canceled) after being live, or a Polar subscription fell past due (Stripe's failed
  payments come from invoice.payment_failed, one per attempt, with the invoice link).
*/
create or replace function public.queue_subscription_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_was_live boolean := old.status in ('active', 'trialing', 'past_due', 'unpaid', 'paused');
  v_will_end boolean := new.cancel_at_period_end or new.cancel_at is not null;
  v_would_end boolean := old.cancel_at_period_end or old.cancel_at is not null;
begin
  if new.status = 'canceled' and old.status is distinct from 'canceled' and v_was_live then
    perform public.enqueue_notification(new.user_id, 'subscription_ended', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'ended_at', coalesce(new.canceled_at, now())));
  elsif new.status in ('active', 'trialing', 'past_due') and v_will_end and not v_would_end then
    perform public.enqueue_notification(new.user_id, 'subscription_canceled', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'ends_at', coalesce(new.cancel_at, new.current_period_end)));
  end if;
  if new.provider = 'polar' and new.status = 'past_due' and old.status is distinct from 'past_due' then
    perform public.enqueue_notification(new.user_id, 'payment_failed', jsonb_build_object(
      'provider', 'polar', 'plan_name', new.plan_name));
  end if;
  return null;
end
$$;
create trigger user_subscriptions_notice after update on public.user_subscriptions
  for each row execute function public.queue_subscription_notice();

-- A confirmed email change (Supabase Auth writes auth.users.email only once it is
-- confirmed): a notice to the old address (the owner learns of it even if someone else
-- changed it) and to the new one.
create or replace function public.queue_email_change_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
declare
  v_data jsonb := jsonb_build_object('old_email', old.email, 'new_email', new.email);
begin
  if coalesce(old.email, '') <> '' and coalesce(new.email, '') <> ''
     and lower(old.email) <> lower(new.email) then
    perform public.enqueue_notification(new.id, 'email_changed', v_data, old.email);
    perform public.enqueue_notification(new.id, 'email_changed', v_data, new.email);
  end if;
  return null;
end
$$;
create trigger on_auth_user_email_changed after update of email on auth.users
  for each row when (old.email is distinct from new.email)
  execute function public.queue_email_change_notice();

/*
  Claims up to p_limit due mails for one deliverer: FOR UPDATE SKIP LOCKED, so concurrent
  deliverers (instances) each get other rows; the claim counts the attempt and moves the row
  p_lease_seconds ahead, so nobody else claims it while it is being sent. `wanted` is the
  user's preference for the mail's category now (no profile: false).
*/
create or replace function public.claim_notifications(p_limit integer, p_lease_seconds integer)
returns table (
  id uuid, user_id uuid, kind text, to_address text, data jsonb, attempts integer,
  wanted boolean, created_at timestamptz)
language sql security definer set search_path = '' as $$
  with picked as (
    select o.id from public.notification_outbox o
    where o.status = 'pending' and o.next_attempt_at <= now()
    order by o.next_attempt_at
    limit greatest(1, least(p_limit, 100))
    for update skip locked
  )
  update public.notification_outbox o
  set attempts = o.attempts + 1,
      next_attempt_at = now() + make_interval(secs => greatest(p_lease_seconds, 1))
  from picked
  where o.id = picked.id
  returning o.id, o.user_id, o.kind, o.to_address, o.data, o.attempts,
    coalesce((select case o.category
                when 'security' then p.notify_security
                when 'billing' then p.notify_billing
                else p.notify_product_updates end
              from public.user_profiles p where p.user_id = o.user_id), false),
    o.created_at
$$;

/*
  Reports the outcome of one claimed attempt: 'sent', 'skipped' (preference off), or
  'failed' (then p_retry_at: when to try again; null = give up, the row is dead). Only the
  claim that counted attempt p_attempt may report; a late report after the lease ran out
  and another deliverer claimed the row changes nothing (false).
*/
create or replace function public.finish_notification(
  p_id uuid, p_attempt integer, p_outcome text, p_error text, p_retry_at timestamptz
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  if p_outcome not in ('sent', 'skipped', 'failed') then
    raise exception 'unknown outcome %', p_outcome using errcode = '22023';
  end if;
  update public.notification_outbox set
    status = case
      when p_outcome <> 'failed' then p_outcome
      when p_retry_at is null then 'dead'
      else 'pending' end,
    next_attempt_at = case when p_outcome = 'failed' and p_retry_at is not null
      then p_retry_at else next_attempt_at end,
    last_error = case when p_outcome = 'failed' then left(p_error, 1000) else last_error end,
    sent_at = case when p_outcome = 'sent' then now() else sent_at end
  where id = p_id and attempts = p_attempt and status = 'pending';
  return found;
end
$$;

-- Privileges, as 20261124000100_table_privileges.sql states them for every table and
-- function (tests/db/privileges.test.ts): the outbox is the server's alone.
revoke all on table public.notification_outbox from public, anon, authenticated, service_role;
grant select, insert, update, delete on table public.notification_outbox to service_role;

revoke all on function
  public.enqueue_notification(uuid, text, jsonb, text, text),
  public.queue_payment_receipt(),
  public.queue_subscription_notice(),
  public.queue_email_change_notice(),
  public.claim_notifications(integer, integer),
  public.finish_notification(uuid, integer, text, text, timestamptz)
from public, anon, authenticated, service_role;

grant execute on function
  public.enqueue_notification(uuid, text, jsonb, text, text),
  public.claim_notifications(integer, integer),
  public.finish_notification(uuid, integer, text, text, timestamptz)
to service_role;
