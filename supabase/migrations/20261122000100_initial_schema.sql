-- Initial schema: profiles, subscriptions, payments, the Stripe product catalogue, the
-- webhook ledger, row-level security, and the profile-images bucket.
-- Runs unchanged on hosted Supabase, a plain PostgreSQL server (after the local platform
-- bootstrap) and embedded PGlite.

create or replace function public.set_updated_at() returns trigger
language plpgsql as $$
begin
  new.updated_at = now();
  return new;
end
$$;

-- user_profiles -------------------------------------------------------------------------
create table public.user_profiles (
  user_id uuid primary key references auth.users (id) on delete cascade,
  display_name text check (char_length(display_name) <= 80),
  avatar_path text check (char_length(avatar_path) <= 512),
  notify_product_updates boolean not null default true,
  notify_billing boolean not null default true,
  notify_security boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create trigger user_profiles_updated_at before update on public.user_profiles
  for each row execute function public.set_updated_at();

-- A profile row for every new user, named from the sign-up metadata when given.
create or replace function public.handle_new_user() returns trigger
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

-- user_subscriptions: one row per user, upserted by the webhooks ------------------------
create table public.user_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  provider text check (provider in ('stripe', 'polar')),
  stripe_customer_id text,
  stripe_subscription_id text,
  polar_customer_id text,
  polar_subscription_id text,
  polar_product_id text,
  plan_name text,
  status text,
  billing_cycle text,
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean not null default false,
  cancel_at timestamptz,
  canceled_at timestamptz,
  trial_start timestamptz,
  trial_end timestamptz,
  cancellation_reason text,
  cancellation_feedback text,
  cancellation_comment text,
  metadata jsonb not null default '{}'::jsonb,
  -- Time of the newest provider event applied to this row; older events never overwrite it.
  last_event_at timestamptz,
  -- Tie-break for events in the same second: how far along the lifecycle the status is.
  last_event_rank smallint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index user_subscriptions_stripe_subscription_idx on public.user_subscriptions (stripe_subscription_id);
create index user_subscriptions_stripe_customer_idx on public.user_subscriptions (stripe_customer_id);
create index user_subscriptions_polar_subscription_idx on public.user_subscriptions (polar_subscription_id);
create trigger user_subscriptions_updated_at before update on public.user_subscriptions
  for each row execute function public.set_updated_at();

-- payment_history: one row per paid invoice / paid order / refund ------------------------
create table public.payment_history (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  provider text not null check (provider in ('stripe', 'polar')),
  stripe_invoice_id text unique,
  stripe_payment_intent_id text,
  polar_subscription_id text,
  polar_order_id text,
  -- Minor units (cents). Negative for refunds.
  amount bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  status text not null,
  description text,
  invoice_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A repeated webhook cannot add a second row for the same order event: the paid order
  -- and its refund are two rows (status 'succeeded' and 'refunded').
  unique (polar_order_id, status),
  check (provider <> 'stripe' or stripe_invoice_id is not null),
  check (provider <> 'polar' or polar_order_id is not null)
);
create index payment_history_user_created_idx on public.payment_history (user_id, created_at desc);
create trigger payment_history_updated_at before update on public.payment_history
  for each row execute function public.set_updated_at();

-- stripe_products: the Stripe catalogue the plans map to --------------------------------
create table public.stripe_products (
  stripe_price_id text primary key,
  stripe_product_id text not null,
  plan_key text not null,
  name text not null,
  amount bigint not null,
  currency text not null,
  billing_interval text not null,
  active boolean not null default true,
  updated_at timestamptz not null default now()
);
create trigger stripe_products_updated_at before update on public.stripe_products
  for each row execute function public.set_updated_at();

-- webhook_events: the ledger; one row per (provider, event id) ever applied -------------
create table public.webhook_events (
  provider text not null check (provider in ('stripe', 'polar')),
  event_id text not null,
  event_type text not null,
  occurred_at timestamptz,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);

-- Row-level security --------------------------------------------------------------------
alter table public.user_profiles enable row level security;
alter table public.user_subscriptions enable row level security;
alter table public.payment_history enable row level security;
alter table public.stripe_products enable row level security;
alter table public.webhook_events enable row level security;

create policy "Users read their own profile" on public.user_profiles
  for select to authenticated using ((select auth.uid()) = user_id);
create policy "Users update their own profile" on public.user_profiles
  for update to authenticated
  using ((select auth.uid()) = user_id) with check ((select auth.uid()) = user_id);

create policy "Users read their own subscription" on public.user_subscriptions
  for select to authenticated using ((select auth.uid()) = user_id);

create policy "Users read their own payments" on public.payment_history
  for select to authenticated using ((select auth.uid()) = user_id);

-- stripe_products and webhook_events have no policies: only the service role (which
-- bypasses RLS) reads or writes them.

-- Belt and braces: the API roles cannot write billing data even if a policy is added by mistake.
revoke insert, update, delete, truncate on public.user_subscriptions, public.payment_history,
  public.webhook_events, public.stripe_products from anon, authenticated;
revoke insert, delete, truncate on public.user_profiles from anon, authenticated;
revoke all on public.user_profiles from anon;

-- Storage: profile images, each user writes only under "<user id>/" ----------------------
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
