-- Whether the account made for an address since a moment is confirmed. The "Check your
-- email" page of the browser that signed up asks it (app/auth/pending-sign-up.server.ts),
-- with the moment of that sign-up: the sign-up itself reaches the auth server just after the
-- page was answered, so the page cannot know the account's id. An address that already had
-- an account (made before that moment) never answers true, so the page cannot tell who has
-- an account.
create or replace function public.sign_up_confirmed_since(p_email text, p_since timestamptz)
returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from auth.users u
    where u.email = lower(p_email)
      and u.created_at >= p_since
      and u.email_confirmed_at is not null
  )
$$;

revoke all on function public.sign_up_confirmed_since(text, timestamptz) from public, anon, authenticated;
grant execute on function public.sign_up_confirmed_since(text, timestamptz) to service_role;
