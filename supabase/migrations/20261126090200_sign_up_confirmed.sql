-- Whether the account a browser's sign-up made is confirmed. The "Check your email" page of
-- that browser asks it (app/auth/pending-sign-up.server.ts) with the nonce its sign-up put
-- in the new account's metadata: the sign-up reaches the auth server just after the page was
-- answered, so the page cannot know the account's id. A sign-up leaves an existing
-- (confirmed) account's metadata alone, so an address that already had an account never
-- answers true, and the page cannot tell who has an account.
create or replace function public.sign_up_confirmed(p_email text, p_nonce text)
returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from auth.users u
    where u.email = lower(p_email)
      and u.raw_user_meta_data ->> 'pending_sign_up' = p_nonce
      and u.email_confirmed_at is not null
  )
$$;

revoke all on function public.sign_up_confirmed(text, text) from public, anon, authenticated;
grant execute on function public.sign_up_confirmed(text, text) to service_role;
