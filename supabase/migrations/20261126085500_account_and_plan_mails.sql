-- Mails about the account's end and about plan changes (docs/notifications.md).
--
-- Account deletion: the app marks the user first (Supabase Auth app metadata,
-- `deletion_started_at`, and the plan it is about to cancel, `canceled_plan`), then ends
-- the subscriptions at the providers and deletes the user. While the mark is set no other
-- mail is queued for the user (the providers' cancellation webhooks would otherwise send
-- "Your Pro subscription has ended… your payment history stays in your account" with links
-- into an account that is gone); pending ones go with the user (on delete cascade). When
-- the user row is deleted, one "Your account was deleted" mail is queued in the same
-- transaction. It belongs to no user any more (user_id null) and is sent whatever the
-- (deleted) preferences said: it is the answer to the person's own request.
--
-- Plan changes and resumes: a live subscription whose plan changes, or whose scheduled
-- cancellation is withdrawn, queues a billing mail that says what changed and when the
-- next charge is.

alter table public.notification_outbox alter column user_id drop not null;
alter table public.notification_outbox drop constraint notification_outbox_kind_check;
alter table public.notification_outbox add constraint notification_outbox_kind_check check (kind in (
  'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
  'plan_changed', 'subscription_resumed', 'password_changed', 'email_changed',
  'signed_out_everywhere', 'account_deleted'));
-- Only the account-deleted mail outlives its user.
alter table public.notification_outbox add constraint notification_outbox_user_check
  check (user_id is not null or kind = 'account_deleted');

/*
  Queues one mail for a user, to `p_to` or (null) the user's current address. Returns false
  when nothing was queued: no such user, no address, the user's deletion has started, or a
  row with the same dedupe key.
*/
create or replace function public.enqueue_notification(
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

/*
  Notices on a subscription change: it was set to end (canceled at period end), it ended
  (canceled) after being live, a Polar subscription fell past due (Stripe's failed
  payments come from invoice.payment_failed, one per attempt, with the invoice link), a
  live subscription changed plan, or a scheduled cancellation was withdrawn (resumed).
*/
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
    perform public.enqueue_notification(new.user_id, 'subscription_resumed', jsonb_build_object(
      'plan_name', new.plan_name, 'provider', new.provider,
      'billing_cycle', new.billing_cycle, 'next_charge_at', new.current_period_end));
  end if;
  -- A name filled in later (Polar's placeholder for a product without one) is no change.
  if v_is_live and v_was_live and old.plan_name is not null and new.plan_name is not null
     and old.plan_name <> 'Unknown Plan' and old.plan_name is distinct from new.plan_name then
    perform public.enqueue_notification(new.user_id, 'plan_changed', jsonb_build_object(
      'old_plan', old.plan_name, 'plan_name', new.plan_name, 'provider', new.provider,
      'billing_cycle', new.billing_cycle, 'next_charge_at', new.current_period_end));
  end if;
  if new.provider = 'polar' and new.status = 'past_due' and old.status is distinct from 'past_due' then
    perform public.enqueue_notification(new.user_id, 'payment_failed', jsonb_build_object(
      'provider', 'polar', 'plan_name', new.plan_name));
  end if;
  return null;
end
$$;

/*
  The one mail of an account deleted by its owner (marked by the app before it canceled the
  subscriptions): queued as the user row goes, to the address it had.
*/
create or replace function public.queue_account_deleted_notice() returns trigger
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
  Claims up to p_limit due mails for one deliverer (as before). `wanted` is the user's
  preference for the mail's category now (no profile: false); the account-deleted mail,
  whose user and preferences are gone, is always wanted.
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
    o.kind = 'account_deleted' or
    coalesce((select case o.category
                when 'security' then p.notify_security
                when 'billing' then p.notify_billing
                else p.notify_product_updates end
              from public.user_profiles p where p.user_id = o.user_id), false),
    o.created_at
$$;

revoke all on function public.queue_account_deleted_notice() from public, anon, authenticated, service_role;
