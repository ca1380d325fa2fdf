-- Whether a signed-in session still exists, for the server (service role) to ask on every
-- signed-in request.
--
-- The app verifies access tokens locally (signature and expiry, no call to the auth
-- server), so a token stays valid until it expires (an hour by default) even after its
-- session ended: signed out in that browser, signed out everywhere, or the user deleted.
-- Supabase Auth deletes the session's row in `auth.sessions` at once in each of those
-- cases, and refuses the token from then on itself (`session_not_found`); this function
-- lets the app refuse it too, with one primary-key lookup instead of a round trip to the
-- auth server. `not_after` is the session's time box (Supabase Auth's own limit).

create or replace function public.session_is_active(p_session_id uuid, p_user_id uuid)
returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1
    from auth.sessions s
    where s.id = p_session_id
      and s.user_id = p_user_id
      and (s.not_after is null or s.not_after > now())
  )
$$;

revoke all on function public.session_is_active(uuid, uuid) from public, anon, authenticated;
grant execute on function public.session_is_active(uuid, uuid) to service_role;
