-- Whether proving an address now (its confirmation link, a code, a sign-in or reset link)
-- would confirm an account whose password this browser cannot show to be its own
-- (app/auth/pending-sign-up.server.ts, docs/security.md): the account, found by the address
-- or by the token a link carries, still waits for its first confirmation, was not invited by
-- the operator, and does not carry the nonce of this browser's sign-up. Supabase Auth keeps
-- the first sign-up's password and metadata when the address signs up again
-- (supabase/supabase#29347), so only the browser of the sign-up that made the account holds
-- its nonce.
create or replace function public.sign_up_unproven(p_email text, p_token_hash text, p_nonce text)
returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from auth.users u
    where u.id in (
        select v.id from auth.users v where v.email = lower(p_email)
        union all
        select t.user_id from auth.one_time_tokens t where t.token_hash = p_token_hash
      )
      and u.email_confirmed_at is null
      and u.invited_at is null
      and not coalesce(u.raw_user_meta_data ->> 'pending_sign_up' = nullif(p_nonce, ''), false)
  )
$$;

revoke all on function public.sign_up_unproven(text, text, text) from public, anon, authenticated;
grant execute on function public.sign_up_unproven(text, text, text) to service_role;
