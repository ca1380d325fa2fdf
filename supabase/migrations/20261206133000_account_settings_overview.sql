/*
  The account settings page in one read besides the session check: the account summary and
  what the page asked the auth server for (`getUser`: the address, the pending one, the
  sign-in methods), with the email change's progress (`email_change_waiting_for`). Security
  definer to read auth.*, only the caller's own row (`auth.uid()`); `password_set` is the
  app's user_metadata key (app/auth/auth.server.ts), matched as JSON: any other value a user
  writes there reads as "not set", never failing the page.

  Grants as tests/db/privileges.test.ts expects.
*/
create function public.account_settings_overview()
returns jsonb
language sql stable security definer set search_path = '' as $$
  select public.account_summary() || jsonb_build_object('account', (
    select jsonb_build_object(
      'email', coalesce(u.email, ''),
      'pending_email', nullif(u.email_change, ''),
      'password', exists (
        select 1 from auth.identities i where i.user_id = u.id and i.provider = 'email'
      ) or u.raw_user_meta_data @> '{"password_set": true}',
      'github', exists (
        select 1 from auth.identities i where i.user_id = u.id and i.provider = 'github'
      ),
      'waiting_for', public.email_change_waiting_for()
    )
    from auth.users u where u.id = (select auth.uid())
  ))
$$;

revoke execute on function public.account_settings_overview() from public, anon;
grant execute on function public.account_settings_overview() to authenticated;
