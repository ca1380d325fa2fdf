/*
  Subscriptions and the webhook ledger. Each ledger function records the event and applies its
  effect in ONE transaction (one RPC call), so a duplicate or concurrent delivery finds the
  ledger row and changes nothing, and a failure leaves no ledger row, so the provider's retry
  applies the event. Where providers differ, a row of `billing_provider_rules` says how, so no
  shared function names a provider (docs/webhooks.md, "Providers in the ledger"): a provider's
  columns, writer functions and rules row are its own migration's.
*/

/*
  One row per provider; the `provider` of every billing table references it, so a provider
  without its row can record nothing. How the ledger treats it:
  - `subscription_user`, `payment_user`: where an event's user is found, tried in order:
    `user_id` is the user the event names (checked by the app); any other entry is a column of
    user_subscriptions whose holder of the event's value under that key is the user.
  - `subscription_columns`: its own columns of user_subscriptions that its events write.
  - `payment_row`: the function writing a payment's row, `(p_payment jsonb) returns boolean`
    (true: written).
  - `payment_change_events`, `payment_change`: events (a LIKE pattern) that change a payment
    already recorded instead, and the function doing so, `(p_change jsonb) returns text`.
  - `past_due_mail`: it sends no event per failed attempt, so falling past due mails the
    subscriber.
*/
create table public.billing_provider_rules (
  provider text primary key,
  subscription_user text[] not null default '{user_id}',
  payment_user text[] not null default '{user_id}',
  subscription_columns text[] not null default '{}',
  payment_row text not null,
  payment_change_events text,
  payment_change text,
  past_due_mail boolean not null default false
);
alter table public.billing_provider_rules enable row level security;

-- One row per user, upserted by the webhooks.
create table public.user_subscriptions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null unique references auth.users (id) on delete cascade,
  provider text references public.billing_provider_rules,
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
  updated_at timestamptz not null default now(),
  -- When a past-due subscription's payment failed, and when the provider retries it (Stripe
  -- only says), so every page can say "Payment failed on … we will retry on …".
  payment_failed_at timestamptz,
  payment_retry_at timestamptz
);
create trigger user_subscriptions_updated_at before update on public.user_subscriptions
  for each row execute function public.set_updated_at();

alter table public.user_subscriptions enable row level security;
create policy "Users read their own subscription" on public.user_subscriptions
  for select to authenticated using ((select auth.uid()) = user_id);

-- The ledger: one row per (provider, event id) ever applied. No policies: the server's alone.
create table public.webhook_events (
  provider text not null references public.billing_provider_rules,
  event_id text not null,
  event_type text not null,
  occurred_at timestamptz,
  received_at timestamptz not null default now(),
  primary key (provider, event_id)
);
-- The newest event per provider (where a changed-only reconciliation starts) and the
-- reconciliation's own rows, read independently of the ledger's size.
create index webhook_events_received_idx on public.webhook_events (provider, received_at desc);
create index webhook_events_reconcile_idx on public.webhook_events (provider)
  where event_id like 'reconcile:%';
alter table public.webhook_events enable row level security;

-- How far along its lifecycle a status is; breaks ties between events of the same second.
create function public.subscription_status_rank(p_status text) returns smallint
language sql immutable set search_path = '' as $$
  select case p_status
    when 'incomplete' then 1
    when 'trialing' then 2
    when 'active' then 3
    when 'past_due' then 4
    when 'paused' then 4
    when 'unpaid' then 5
    when 'incomplete_expired' then 6
    when 'canceled' then 6
    else 0
  end::smallint
$$;

-- Records a provider event in the ledger; false when it was already recorded.
create function public.record_webhook_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz
) returns boolean
language plpgsql security definer set search_path = '' as $$
begin
  insert into public.webhook_events (provider, event_id, event_type, occurred_at)
  values (p_provider, p_event_id, p_event_type, p_occurred_at)
  on conflict (provider, event_id) do nothing;
  return found;
end
$$;

-- The user an event belongs to, by its provider's rule (`p_keys`); null when none is found.
create function public.ledger_user(p_keys text[], p_named uuid, p_data jsonb) returns uuid
language plpgsql stable set search_path = '' as $$
declare
  v_key text;
  v_user uuid;
begin
  foreach v_key in array coalesce(p_keys, '{user_id}') loop
    if v_key = 'user_id' then
      v_user := p_named;
    elsif p_data ->> v_key is not null then
      execute format('select user_id from public.user_subscriptions where %I = $1 limit 1', v_key)
        into v_user using p_data ->> v_key;
    end if;
    if v_user is not null then
      return v_user;
    end if;
  end loop;
  return null;
end
$$;

/*
  Applies a subscription event to the user's row; p_fields holds the columns the event sets.
  Returns 'applied', 'duplicate' (ledger), 'no_user', 'deleted_account' (a live subscription
  naming a user who no longer exists: logged at error), 'stale' (older than the row),
  'superseded' (a late event of another subscription while the row's is live) or
  'duplicate_subscription' (a second live one, at any provider: the row stays on the one in
  use). The event's subscription is `<provider>_subscription_id`; the provider's own columns
  are those its rules row lists, so a new provider needs no branch here.
*/
create function public.apply_subscription_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_fields jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rank smallint := public.subscription_status_rank(p_fields ->> 'status');
  v_live text[] := '{active,trialing,past_due}';
  v_rules public.billing_provider_rules;
  v_row public.user_subscriptions;
  v_new public.user_subscriptions;
  v_sub_key text := p_provider || '_subscription_id';
  v_held text;
  v_another boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  select * into v_rules from public.billing_provider_rules where provider = p_provider;
  p_user_id := public.ledger_user(v_rules.subscription_user, p_user_id, p_fields);
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return case when p_user_id is not null and p_fields ->> 'status' = any (v_live)
      then 'deleted_account' else 'no_user' end;
  end if;

  -- One row per user; lock it so concurrent events for the same user apply one by one.
  insert into public.user_subscriptions (user_id) values (p_user_id) on conflict (user_id) do nothing;
  select * into v_row from public.user_subscriptions where user_id = p_user_id for update;

  if p_fields ->> 'status' is null then
    v_rank := v_row.last_event_rank;
  end if;
  -- The subscription the row holds: its id at the row's own provider.
  v_held := to_jsonb(v_row) ->> (v_row.provider || '_subscription_id');
  v_another := p_fields ? v_sub_key and v_held is not null
    and (v_row.provider <> p_provider or v_held <> p_fields ->> v_sub_key);
  -- An event about another subscription than the user's ended one starts a new lifecycle:
  -- the same-second rank tie-break (meant for one subscription's events) does not apply.
  if v_row.last_event_at is not null and (
       p_occurred_at < v_row.last_event_at
       or (p_occurred_at = v_row.last_event_at and v_rank < v_row.last_event_rank
           and not (v_another and v_row.status in ('canceled', 'incomplete_expired')))) then
    return 'stale';
  end if;

  -- While the row's subscription is live, another one never takes the row over: a second
  -- live one (a user paying twice, at any provider) is a duplicate; any other event about
  -- one (a late event of a previous subscription) must not end the one in use.
  if v_another and v_row.status = any (v_live) then
    return case when p_fields ->> 'status' = any (v_live)
      then 'duplicate_subscription' else 'superseded' end;
  end if;

  v_new := jsonb_populate_record(v_row, p_fields);
  -- The provider's own columns by its rules: one statement for every provider, a new one's too.
  execute format($update$update public.user_subscriptions set
    provider = ($1).provider%s,
    plan_name = ($1).plan_name,
    status = ($1).status,
    billing_cycle = ($1).billing_cycle,
    current_period_start = ($1).current_period_start,
    current_period_end = ($1).current_period_end,
    cancel_at_period_end = coalesce(($1).cancel_at_period_end, false),
    cancel_at = ($1).cancel_at,
    canceled_at = ($1).canceled_at,
    trial_start = ($1).trial_start,
    trial_end = ($1).trial_end,
    cancellation_reason = ($1).cancellation_reason,
    cancellation_feedback = ($1).cancellation_feedback,
    cancellation_comment = ($1).cancellation_comment,
    metadata = coalesce(($1).metadata, '{}'::jsonb),
    last_event_at = $3,
    last_event_rank = $4
  where user_id = $2$update$, (select string_agg(format(', %1$I = ($1).%1$I', c), '')
                                from unnest(v_rules.subscription_columns) c))
  using v_new, p_user_id, p_occurred_at, v_rank;
  return 'applied';
end
$$;

-- Keeps the newest failure: webhooks are not ordered, so an older attempt's event changes nothing.
create function public.note_payment_failure(
  p_user_id uuid, p_failed_at timestamptz, p_retry_at timestamptz
) returns void
language sql security definer set search_path = '' as $$
  update public.user_subscriptions
     set payment_failed_at = p_failed_at, payment_retry_at = p_retry_at
   where user_id = p_user_id
     and (payment_failed_at is null or payment_failed_at <= p_failed_at);
$$;

-- Sets payment_failed_at when the subscription falls past due (unless this period's failure is
-- known) and clears both dates when it leaves past due.
create function public.track_payment_failure() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if new.status = 'past_due' and old.status is distinct from 'past_due'
     and (new.payment_failed_at is null
          or new.payment_failed_at < coalesce(new.current_period_start, '-infinity')) then
    -- A failure of an earlier period (or none known yet): this one happened now.
    new.payment_failed_at := coalesce(new.last_event_at, now());
    new.payment_retry_at := null;
  elsif old.status = 'past_due' and new.status is distinct from 'past_due' then
    new.payment_failed_at := null;
    new.payment_retry_at := null;
  end if;
  return new;
end
$$;
create trigger user_subscriptions_payment_failure before update on public.user_subscriptions
  for each row execute function public.track_payment_failure();
