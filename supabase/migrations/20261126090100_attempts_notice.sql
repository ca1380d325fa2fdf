-- The notice an account's owner gets when its guessing ceiling is reached (too many
-- password or code attempts for one address, from any number of clients): checking that
-- secret is paused for the rest of the window, the emailed link still works, and the owner
-- is told so (app/auth/rate-limits.server.ts, docs/security.md "Abuse limits").

-- One more kind of mail in the outbox, under the security preference.
alter table public.notification_outbox drop constraint notification_outbox_kind_check;
alter table public.notification_outbox add constraint notification_outbox_kind_check check (kind in (
  'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
  'plan_changed', 'subscription_resumed', 'password_changed', 'email_changed',
  'signed_out_everywhere', 'account_deleted', 'attempts_limited'));

/*
  Queues the notice for the account whose address is `p_email` (as the auth server stores
  it: trimmed, lower case), saying which check was paused (`p_flow`) and for how long
  (`p_data`). Returns false when no account has that address: the requester never learns
  which it was (the answer to the request is the same either way).
*/
create or replace function public.enqueue_attempts_notice(p_email text, p_flow text, p_data jsonb)
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

revoke all on function public.enqueue_attempts_notice(text, text, jsonb)
  from public, anon, authenticated, service_role;
grant execute on function public.enqueue_attempts_notice(text, text, jsonb) to service_role;
