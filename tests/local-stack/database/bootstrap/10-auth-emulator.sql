-- Internal state of the local Supabase emulator (tests/local-stack/supabase), kept in Postgres
-- so that it survives restarts in development like GoTrue's own tables do. Modelled on
-- supabase/auth migrations (sessions, refresh_tokens, identities, flow_state,
-- one_time_tokens); the mail inbox and storage file bytes live in an emulator-only schema.
-- Idempotent: runs on every start. Local databases only, never hosted Supabase.

alter table auth.users add column if not exists email_change_confirm_status smallint not null default 0;
-- The nonce of "secure password change" (POST /reauthenticate), as in GoTrue's auth.users.
alter table auth.users add column if not exists reauthentication_token text not null default '';
alter table auth.users add column if not exists reauthentication_sent_at timestamptz;

create table if not exists auth.identities (
  id uuid primary key default gen_random_uuid(),
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null default '{}'::jsonb,
  provider text not null,
  email text generated always as (lower(identity_data ->> 'email')) stored,
  last_sign_in_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (provider_id, provider)
);
create index if not exists identities_user_id_idx on auth.identities (user_id);

create table if not exists auth.sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  aal text not null default 'aal1',
  -- GoTrue keeps these in auth.mfa_amr_claims; one jsonb array is enough here.
  amr jsonb not null default '[]'::jsonb,
  user_agent text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  refreshed_at timestamptz
);
create index if not exists sessions_user_id_idx on auth.sessions (user_id);
-- The session's time box, as in Supabase Auth (null: none).
alter table auth.sessions add column if not exists not_after timestamptz;

create table if not exists auth.refresh_tokens (
  id bigserial primary key,
  token text not null unique,
  user_id uuid not null references auth.users (id) on delete cascade,
  session_id uuid not null references auth.sessions (id) on delete cascade,
  parent text,
  revoked boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index if not exists refresh_tokens_session_id_idx on auth.refresh_tokens (session_id, revoked);

-- PKCE: one row per flow started with a code_challenge (email flows and OAuth).
create table if not exists auth.flow_state (
  id uuid primary key default gen_random_uuid(),
  user_id uuid references auth.users (id) on delete cascade,
  auth_code text not null unique,
  code_challenge_method text,
  code_challenge text,
  provider_type text not null,
  authentication_method text not null,
  -- Emulator extension: GoTrue carries these in its OAuth state JWT.
  redirect_to text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  auth_code_issued_at timestamptz
);
create index if not exists flow_state_user_method_idx on auth.flow_state (user_id, authentication_method, created_at);

-- Email OTPs: token_hash = sha224_hex(email || otp), prefixed "pkce_" for PKCE flows.
create table if not exists auth.one_time_tokens (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  token_type text not null check (
    token_type in ('confirmation_token', 'recovery_token', 'email_change_token_new', 'email_change_token_current')
  ),
  token_hash text not null,
  relates_to text not null,
  created_at timestamptz not null default now(),
  unique (user_id, token_type)
);
create index if not exists one_time_tokens_token_hash_idx on auth.one_time_tokens (token_hash);

create schema if not exists local_emulator;

create table if not exists local_emulator.mail (
  id uuid primary key default gen_random_uuid(),
  to_address text not null,
  subject text not null,
  kind text not null,
  text_body text not null,
  html_body text not null,
  link text,
  verify_url text,
  otp text,
  created_at timestamptz not null default clock_timestamp()
);
create index if not exists mail_to_created_idx on local_emulator.mail (lower(to_address), created_at desc);

-- Bytes of storage objects (hosted Supabase keeps them in S3). Deleting the object row
-- deletes the bytes.
create table if not exists local_emulator.storage_blobs (
  object_id uuid primary key references storage.objects (id) on delete cascade,
  data bytea not null
);
