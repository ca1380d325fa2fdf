-- Which address of the signed-in user's email change still waits for its link.
--
-- With secure email change on, Supabase Auth mails a link to the current address and one
-- to the new address, and changes the email only once both are opened. The first link
-- answers only "Confirmation link accepted. Please proceed to confirm link sent to the
-- other email", without saying which one is left. Supabase Auth clears the one-time token
-- of the link that was opened (`auth.one_time_tokens`, GoTrue's emailChangeVerify) and
-- keeps the other, so the remaining token says which address Account settings should name:
-- 'new', 'current', or null (no change half done).

create or replace function public.email_change_waiting_for()
returns text
language plpgsql stable security definer set search_path = '' as $$
declare
  v_left text[];
begin
  select array_agg(t.token_type::text order by t.token_type::text) into v_left
  from auth.one_time_tokens t
  where t.user_id = auth.uid()
    and t.token_type::text in ('email_change_token_new', 'email_change_token_current');
  if v_left = array['email_change_token_new'] then
    return 'new';
  elsif v_left = array['email_change_token_current'] then
    return 'current';
  end if;
  return null;
end
$$;

revoke all on function public.email_change_waiting_for() from public, anon, authenticated;
grant execute on function public.email_change_waiting_for() to authenticated;
