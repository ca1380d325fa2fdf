/*
  One contact receipt per address a day (docs/contact.md, "Delivery"). The receipt goes to
  whatever address a submission names, and the form's budget is per client, so twenty clients
  could mail one stranger a hundred receipts from our domain. The message is still stored and
  mailed to the team every time; only the receipt is budgeted, per recipient, in the rate-limit
  table the app's shared budgets use (the key is the address's SHA-256, as the app's email keys
  are), counted in the same transaction as the message, whichever store RATE_LIMIT_STORE names.
*/
create or replace function public.store_contact_message(p_message jsonb, p_team text)
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
