-- What an emailed link is about, for the confirmation page (/auth/confirm) to say before
-- anyone presses its button: whose account it belongs to, what it does, and whether it can
-- still be used.
--
-- Supabase Auth keeps one row per outstanding mailed token in `auth.one_time_tokens`, keyed
-- by the same token hash the link carries (`pkce_`-prefixed for PKCE flows), and deletes the
-- row when the token is used or replaced by a newer mail. So: no row means used (or never
-- valid); a row older than the project's OTP lifetime means expired. The answer names the
-- kind of token, the address it was sent to, the account's current address and a pending new
-- one, and the token's age in seconds; the token itself is never returned.

create or replace function public.email_link_state(p_token_hash text)
returns table (
  token_type text,
  sent_to text,
  account_email text,
  new_email text,
  age_seconds integer
)
language sql stable security definer set search_path = '' as $$
  select
    t.token_type::text,
    t.relates_to,
    u.email::text,
    nullif(u.email_change, '')::text,
    floor(extract(epoch from (now() - t.created_at::timestamptz)))::integer
  from auth.one_time_tokens t
  join auth.users u on u.id = t.user_id
  where t.token_hash = p_token_hash
  order by t.created_at desc
  limit 1
$$;

revoke all on function public.email_link_state(text) from public, anon, authenticated;
grant execute on function public.email_link_state(text) to service_role;
