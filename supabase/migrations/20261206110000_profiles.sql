/*
  Profiles, the profile-images bucket, and the auth helpers the server asks on sign-in pages.
  Runs unchanged on hosted Supabase, a plain PostgreSQL server (after the local platform
  bootstrap) and embedded PGlite. Privileges for every table and function are in the last
  baseline file.
*/

create function public.set_updated_at() returns trigger
language plpgsql as $$
begin
  new.updated_at = now();
  return new;
end
$$;

create table public.user_profiles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  display_name text check (char_length(display_name) <= 80),
  avatar_path text check (char_length(avatar_path) <= 512),
  -- Opt-in: a pre-ticked box is not consent.
  notify_product_updates boolean not null default false,
  notify_billing boolean not null default true,
  notify_security boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create trigger user_profiles_updated_at before update on public.user_profiles
  for each row execute function public.set_updated_at();

alter table public.user_profiles enable row level security;
create policy "Users read their own profile" on public.user_profiles
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users update their own profile" on public.user_profiles
  for update to authenticated
  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);

-- A profile row for every new user, named from the sign-up metadata when given.
create function public.handle_new_user() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.user_profiles (user_id, display_name)
  values (
    new.id,
    nullif(left(coalesce(new.raw_user_meta_data ->> 'full_name', new.raw_user_meta_data ->> 'name', ''), 80), '')
  )
  on conflict (user_id) do nothing;
  return new;
end
$$;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function public.handle_new_user();

-- Profile images: public reads by URL, each user writes only under "<user id>/".
insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
values ('profile-images', 'profile-images', true, 2097152, array['image/png', 'image/jpeg', 'image/webp', 'image/gif'])
on conflict (id) do nothing;

create policy "Users read their own profile images" on storage.objects
  for select to authenticated
  using (bucket_id = 'profile-images' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "Users upload profile images to their own folder" on storage.objects
  for insert to authenticated
  with check (bucket_id = 'profile-images' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "Users update their own profile images" on storage.objects
  for update to authenticated
  using (bucket_id = 'profile-images' and (storage.foldername(name))[1] = (select auth.uid())::text)
  with check (bucket_id = 'profile-images' and (storage.foldername(name))[1] = (select auth.uid())::text);
create policy "Users delete their own profile images" on storage.objects
  for delete to authenticated
  using (bucket_id = 'profile-images' and (storage.foldername(name))[1] = (select auth.uid())::text);

/*
  Whether a signed-in session still exists. The app verifies access tokens locally, so a token
  outlives a sign-out until it expires; Supabase Auth deletes the session row at once, and one
  primary-key lookup lets the app refuse the token too, without a call to the auth server.
*/
create function public.session_is_active(p_session_id uuid, p_user_id uuid)
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

/*
  Which address of the signed-in user's email change still waits for its link ('new',
  'current', or null). Supabase Auth's answer to the first link does not say; the one-time
  token it keeps for the other link does.
*/
create function public.email_change_waiting_for()
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

/*
  What an emailed link is about, for /auth/confirm to say before anyone presses its button.
  Supabase Auth keeps one row per outstanding mailed token and deletes it when used or
  replaced: no row means used; an old row means expired. The token itself is never returned.
*/
create function public.email_link_state(p_token_hash text)
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

/*
  Whether the account a browser's sign-up made is confirmed, asked with the nonce that sign-up
  put in the metadata (the page cannot know the account's id). An existing account's metadata
  is left alone by a new sign-up, so the page cannot tell who has an account.
*/
create function public.sign_up_confirmed(p_email text, p_nonce text)
returns boolean
language sql stable security definer set search_path = '' as $$
  select exists (
    select 1 from auth.users u
    where u.email = lower(p_email)
      and u.raw_user_meta_data ->> 'pending_sign_up' = p_nonce
      and u.email_confirmed_at is not null
  )
$$;

/*
  Whether proving an address now would confirm an account whose password this browser cannot
  show to be its own: unconfirmed, not invited, and without this browser's sign-up nonce
  (Supabase Auth keeps the first sign-up's password, supabase/supabase#29347).
*/
create function public.sign_up_unproven(p_email text, p_token_hash text, p_nonce text)
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
