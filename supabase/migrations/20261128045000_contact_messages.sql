-- Contact messages (docs/contact.md): each accepted message is stored, and in the same
-- transaction two mails are queued in the outbox: the message to the team (CONTACT_TO,
-- reply-to the sender) and a short receipt to the sender. A message is stored or it is not:
-- never stored without its mails, or mailed without being stored.

create table public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  first_name text not null,
  last_name text not null,
  email text not null,
  company text not null,
  message text not null,
  created_at timestamptz not null default now()
);

-- No policies: only the server (service role, which bypasses RLS) reads or writes them.
alter table public.contact_messages enable row level security;
revoke all on table public.contact_messages from public, anon, authenticated, service_role;
grant select, insert, update, delete on table public.contact_messages to service_role;

-- Two more kinds of mail. They belong to no user and are under no preference: the message is
-- the team's, the receipt the answer to the sender's own request.
alter table public.notification_outbox drop constraint notification_outbox_kind_check;
alter table public.notification_outbox add constraint notification_outbox_kind_check check (kind in (
  'payment_receipt', 'payment_failed', 'subscription_canceled', 'subscription_ended',
  'plan_changed', 'subscription_resumed', 'password_changed', 'email_changed',
  'signed_out_everywhere', 'account_deleted', 'attempts_limited', 'payment_refunded',
  'customer_email', 'contact_message', 'contact_receipt'));
alter table public.notification_outbox drop constraint notification_outbox_user_check;
alter table public.notification_outbox add constraint notification_outbox_user_check
  check (user_id is not null or kind in ('account_deleted', 'contact_message', 'contact_receipt'));

/*
  Stores one validated message (`p_message`: firstName, lastName, email, company, message)
  and queues its two mails: to `p_team`, and the receipt to the sender. Returns the id.
*/
create or replace function public.store_contact_message(p_message jsonb, p_team text)
returns uuid
language plpgsql security definer set search_path = '' as $$
declare
  v_message public.contact_messages;
begin
  insert into public.contact_messages (first_name, last_name, email, company, message)
  values (p_message ->> 'firstName', p_message ->> 'lastName', p_message ->> 'email',
          p_message ->> 'company', p_message ->> 'message')
  returning * into v_message;
  -- (The category is read for a user's preference only: these have none.)
  insert into public.notification_outbox (user_id, kind, category, to_address, data) values
    (null, 'contact_message', 'security', p_team, p_message || jsonb_build_object(
      'message_id', v_message.id, 'received_at', v_message.created_at)),
    (null, 'contact_receipt', 'security', v_message.email,
      jsonb_build_object('received_at', v_message.created_at));
  return v_message.id;
end
$$;

/*
  Claims up to p_limit due mails (as before). A mail without a user (the account-deleted
  mail, the contact mails) has no preference to read: it is always wanted.
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
    o.user_id is null or
    coalesce((select case o.category
                when 'security' then p.notify_security
                when 'billing' then p.notify_billing
                else p.notify_product_updates end
              from public.user_profiles p where p.user_id = o.user_id), false),
    o.created_at
$$;

revoke all on function public.store_contact_message(jsonb, text)
  from public, anon, authenticated, service_role;
grant execute on function public.store_contact_message(jsonb, text) to service_role;
