/*
  Mails as a transactional outbox (docs/notifications.md). A mail the product sends on its own
  is a row written in the SAME transaction as its cause (a payment row and its receipt, a
  subscription change and its notice, a confirmed email change and its notices), so neither
  commits without the other. The app claims due rows (FOR UPDATE SKIP LOCKED: two instances
  never claim the same row), renders each from its kind and data, sends it and reports.
*/

create table public.notification_outbox (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  kind text not null check (kind in (
    'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
    'plan_changed', 'subscription_resumed', 'password_changed', 'email_changed',
    'signed_out_everywhere', 'account_deleted', 'attempts_limited', 'payment_refunded',
    'customer_email', 'contact_message', 'contact_receipt')),
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
  updated_at timestamptz not null default now(),
  -- Only the account-deleted mail and the contact mails belong to no user.
  constraint notification_outbox_user_check
    check (user_id is not null or kind in ('account_deleted', 'contact_message', 'contact_receipt'))
);
create index notification_outbox_due_idx on public.notification_outbox (next_attempt_at)
  where status = 'pending';
create index notification_outbox_user_idx on public.notification_outbox (user_id);
create trigger notification_outbox_updated_at before update on public.notification_outbox
  for each row execute function public.set_updated_at();
alter table public.notification_outbox enable row level security;

/*
  Queues one mail for a user, to `p_to` or (null) the user's current address. False when
  nothing was queued: no such user, no address, a row with the same dedupe key, or the user's
  deletion has started (the app marks the user before canceling the subscriptions, so the
  providers' cancellation webhooks mail nothing into an account that is going).
*/
create function public.enqueue_notification(
  p_user_id uuid, p_kind text, p_data jsonb, p_to text default null, p_dedupe_key text default null
) returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_to text := nullif(trim(p_to), '');
  v_email text;
  v_deleting boolean;
begin
  select u.email, u.raw_app_meta_data ? 'deletion_started_at' into v_email, v_deleting
  from auth.users u where u.id = p_user_id;
  if not found or v_deleting then
    return false;
  end if;
  v_to := coalesce(v_to, v_email);
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

-- A receipt for every payment recorded (not refunds, not zero-amount invoices), and for a
-- pending or failed payment paid later.
create function public.queue_payment_receipt() returns trigger
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
create trigger payment_history_receipt_when_paid after update of status on public.payment_history
  for each row when (old.status in ('pending', 'failed') and new.status in ('paid', 'succeeded'))
  execute function public.queue_payment_receipt();

-- A refund's mail: one per refunded total of a payment, naming that refund's own amount, the
-- total refunded and the payment (a refund row of its own raises its payment's total too).
create function public.queue_refund_notice() returns trigger
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
create trigger payment_history_refund_notice after insert or update on public.payment_history
  for each row execute function public.queue_refund_notice();

/*
  Notices on a subscription change: set to end, ended after being live, resumed, plan changed
  (a placeholder name filled in later is no change), or fallen past due at a provider whose
  rules say so (others send a failed-payment event per attempt).
*/
create function public.queue_subscription_notice() returns trigger
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
  if new.status = 'past_due' and old.status is distinct from 'past_due'
     and (select past_due_mail from public.billing_provider_rules where provider = new.provider) then
    perform public.enqueue_notification(new.user_id, 'payment_failed', jsonb_build_object(
      'provider', new.provider, 'plan_name', new.plan_name));
  end if;
  return null;
end
$$;
create trigger user_subscriptions_notice after update on public.user_subscriptions
  for each row execute function public.queue_subscription_notice();

-- A confirmed email change: a notice to the old address (the owner learns of it even if
-- someone else changed it) and to the new one.
create function public.queue_email_change_notice() returns trigger
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

-- A confirmed email change: the providers' customers take the new address (not a mail: the
-- deliverer updates them, retried like a mail; app/billing/customer-email.server.ts).
create function public.queue_customer_email() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if coalesce(old.email, '') <> '' and coalesce(new.email, '') <> ''
     and lower(old.email) <> lower(new.email) then
    perform public.enqueue_notification(new.id, 'customer_email',
      jsonb_build_object('old_email', old.email, 'new_email', new.email), new.email);
  end if;
  return null;
end
$$;
create trigger on_auth_user_email_changed_customers after update of email on auth.users
  for each row when (old.email is distinct from new.email)
  execute function public.queue_customer_email();

-- The one mail of an account deleted by its owner, queued as the user row goes, to the
-- address it had, and sent whatever the (deleted) preferences said.
create function public.queue_account_deleted_notice() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if old.raw_app_meta_data ? 'deletion_started_at' and coalesce(old.email, '') <> '' then
    insert into public.notification_outbox (user_id, kind, category, to_address, data)
    values (null, 'account_deleted', 'security', old.email, jsonb_build_object(
      'deleted_at', now(),
      'canceled_plan', old.raw_app_meta_data -> 'canceled_plan'));
  end if;
  return old;
end
$$;
create trigger on_auth_user_deleted before delete on auth.users
  for each row execute function public.queue_account_deleted_notice();

/*
  The notice to an account's owner when its guessing ceiling is reached. False when no account
  has that address: the requester never learns which it was.
*/
create function public.enqueue_attempts_notice(p_email text, p_flow text, p_data jsonb)
returns boolean
language plpgsql security definer set search_path = '' as $$
declare
  v_user uuid;
  v_to text;
begin
  if p_flow is null or p_flow not in ('sign-in', 'password-check', 'email-code') then
    raise exception 'enqueue_attempts_notice: unknown flow %', p_flow using errcode = '22023';
  end if;
  select u.id, u.email into v_user, v_to
  from auth.users u
  where u.email = lower(trim(p_email))
  limit 1;
  if v_user is null or coalesce(v_to, '') = '' then
    return false;
  end if;
  insert into public.notification_outbox (user_id, kind, category, to_address, data)
  values (v_user, 'attempts_limited', 'security', v_to,
          coalesce(p_data, '{}'::jsonb) || jsonb_build_object('flow', p_flow));
  return true;
end
$$;

/*
  Claims up to p_limit due mails for one deliverer, counting the attempt and moving the row
  p_lease_seconds ahead. `wanted` is the user's preference for the mail's category now; a mail
  without a user has none and is always wanted.
*/
create function public.claim_notifications(p_limit integer, p_lease_seconds integer)
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
    o.user_id is null or
    coalesce((select case o.category
                when 'security' then p.notify_security
                when 'billing' then p.notify_billing
                else p.notify_product_updates end
              from public.user_profiles p where p.user_id = o.user_id), false),
    o.created_at
$$;

/*
  Reports one claimed attempt: 'sent', 'skipped' (preference off) or 'failed' (p_retry_at:
  when to retry; null: dead). Only the claim that counted attempt p_attempt may report.
*/
create function public.finish_notification(
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

-- Contact messages (docs/contact.md): stored, and in the same transaction mailed to the team
-- and (one receipt per address a day) to the sender.
create table public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  first_name text not null,
  last_name text not null,
  email text not null,
  company text not null,
  message text not null,
  created_at timestamptz not null default now()
);
alter table public.contact_messages enable row level security;

/*
  Stores one validated message and queues the team's mail and the receipt. The receipt goes to
  whatever address a submission names, so it is budgeted per recipient (the address's SHA-256,
  in the shared rate-limit table); the message is stored and sent to the team every time.
*/
create function public.store_contact_message(p_message jsonb, p_team text)
returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_message public.contact_messages;
  v_key text;
begin
  insert into public.contact_messages (first_name, last_name, email, company, message)
  values (p_message ->> 'firstName', p_message ->> 'lastName', p_message ->> 'email',
          p_message ->> 'company', p_message ->> 'message')
  returning * into v_message;
  -- (The category is read for a user's preference only: these have none.)
  insert into public.notification_outbox (user_id, kind, category, to_address, data) values
    (null, 'contact_message', 'security', p_team, p_message || jsonb_build_object(
      'message_id', v_message.id, 'received_at', v_message.created_at));
  v_key := 'contact:receipt:' ||
    left(encode(sha256(convert_to(lower(btrim(v_message.email)), 'UTF8')), 'hex'), 32);
  if (public.rate_limit_hits(array[v_key], array[1], array[86400000]) -> 0 ->> 'allowed')::boolean
  then
    insert into public.notification_outbox (user_id, kind, category, to_address, data) values
      (null, 'contact_receipt', 'security', v_message.email,
        jsonb_build_object('received_at', v_message.created_at));
  end if;
  return v_message.id;
end
$$;

/*
  The billing page's next payment after a plan change this period: the change's notice keeps
  the old plan, the period's start and the time of the change (read as the resume notice reads
  them), which the app prorates as the mails do (upcomingInvoice in
  app/notifications/render.ts), in the page's one read. Security definer to read the outbox,
  the caller's own row only.
*/
create function public.current_plan_change()
returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object('old_plan', o.data -> 'old_plan',
    'period_start', o.data -> 'period_start', 'changed_at', o.data -> 'changed_at')
  from public.user_subscriptions s
  join public.notification_outbox o on o.user_id = s.user_id and o.kind = 'plan_changed'
    and (o.data ->> 'changed_at')::timestamptz >= s.current_period_start
  where s.user_id = (select auth.uid())
  order by o.created_at desc
  limit 1
$$;

-- Both, in one statement (their subscription is the same row, so they cannot drift apart).
create function public.account_billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select public.account_summary() || public.billing_overview(p_page, p_page_size)
    || jsonb_build_object('plan_change', public.current_plan_change())
$$;
