/*
  Payments: one billing-history row per paid invoice or order, failed invoice and refund, written
  only by the ledger functions (one transaction with the event's ledger row), and the reads of
  the signed-in pages, each one call that runs as the caller so row-level security decides
  what it reads.
*/

create table public.payment_history (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  provider text not null references public.billing_provider_rules,
  -- The payment's id at its provider (an invoice, an order); each provider's migration says
  -- which rows it may repeat in (a unique index of its own).
  provider_payment_id text not null,
  -- The charge behind it, when the provider has one and it is known (Stripe's PaymentIntent):
  -- refunds and disputes name it.
  provider_charge_id text,
  -- Minor units (cents). Negative for refunds.
  amount bigint not null,
  currency text not null check (currency ~ '^[a-z]{3}$'),
  status text not null,
  description text,
  invoice_url text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- A payment's largest refunded total seen (events are not ordered), and its dispute.
  amount_refunded bigint not null default 0 check (amount_refunded >= 0),
  dispute_status text
);
-- The billing page reads one page, newest first, by (created_at desc, id desc): the first
-- rows of one index range, whatever the history's length.
create index payment_history_user_created_id_idx
  on public.payment_history (user_id, created_at desc, id desc);
create index payment_history_charge_idx on public.payment_history (provider_charge_id)
  where provider_charge_id is not null;
create trigger payment_history_updated_at before update on public.payment_history
  for each row execute function public.set_updated_at();

alter table public.payment_history enable row level security;
create policy "Users read their own payments" on public.payment_history
  for select to authenticated using ((select auth.uid()) = user_id);

-- How many payments each user has, kept by a trigger, so "page x of y" counts nothing.
create table public.payment_totals (
  user_id uuid primary key references auth.users (id) on delete cascade,
  total integer not null default 0 check (total >= 0)
);
alter table public.payment_totals enable row level security;
create policy "Users read their own payment total" on public.payment_totals
  for select to authenticated using ((select auth.uid()) = user_id);

create function public.track_payment_total() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    update public.payment_totals set total = total - 1 where user_id = old.user_id;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into public.payment_totals as t (user_id, total) values (new.user_id, 1)
    on conflict (user_id) do update set total = t.total + 1;
  end if;
  return null;
end
$$;
create trigger payment_history_total after insert or delete or update of user_id
  on public.payment_history for each row execute function public.track_payment_total();

/*
  Records a payment (or refund) event by the provider's rules: 'applied', 'duplicate' (ledger),
  'exists' (the row was there from another event), 'no_user', or 'deleted_account' (money for
  a user who no longer exists: logged at error); a change event returns its function's answer.
*/
create function public.record_payment_event(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz, p_payment jsonb
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rules public.billing_provider_rules;
  v_user uuid;
  v_outcome text;
  v_written boolean;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  select * into v_rules from public.billing_provider_rules where provider = p_provider;
  if p_event_type like v_rules.payment_change_events then
    execute format('select public.%I($1)', v_rules.payment_change) into v_outcome using p_payment;
    return v_outcome;
  end if;
  v_user := public.ledger_user(v_rules.payment_user, (p_payment ->> 'user_id')::uuid, p_payment);
  if v_user is null or not exists (select 1 from auth.users where id = v_user) then
    return case when v_user is not null and (p_payment ->> 'amount')::numeric > 0
      then 'deleted_account' else 'no_user' end;
  end if;
  execute format('select public.%I($1)', v_rules.payment_row) into v_written
    using p_payment || jsonb_build_object('user_id', v_user);
  return case when v_written then 'applied' else 'exists' end;
end
$$;

/*
  A failed payment: the ledger row, when it failed and when it is retried, the failed row
  (`p_payment`, when given) and the mail, in one transaction. One mail per invoice and attempt.
*/
create function public.record_payment_failure(
  p_provider text, p_event_id text, p_event_type text, p_occurred_at timestamptz,
  p_user_id uuid, p_data jsonb, p_payment jsonb default null
) returns text
language plpgsql security definer set search_path = '' as $$
declare
  v_rules public.billing_provider_rules;
begin
  if not public.record_webhook_event(p_provider, p_event_id, p_event_type, p_occurred_at) then
    return 'duplicate';
  end if;
  select * into v_rules from public.billing_provider_rules where provider = p_provider;
  p_user_id := public.ledger_user(v_rules.payment_user, p_user_id, p_payment);
  if p_user_id is null or not exists (select 1 from auth.users where id = p_user_id) then
    return 'no_user';
  end if;
  perform public.note_payment_failure(p_user_id, p_occurred_at, (p_data ->> 'retry_at')::timestamptz);
  if p_payment is not null then
    execute format('select public.%I($1)', v_rules.payment_row)
      using p_payment || jsonb_build_object('user_id', p_user_id, 'status', 'failed');
  end if;
  perform public.enqueue_notification(
    p_user_id, 'payment_failed', p_data, null,
    'payment_failed:' || p_provider || ':' || coalesce(p_data ->> 'invoice_id', p_event_id)
      || ':' || coalesce(p_data ->> 'attempt', p_event_id));
  return 'notified';
end
$$;

/*
  Completes a payment recorded before the provider could give its invoice link or payment
  reference (docs/webhooks.md, "Lookups that can wait"): fills only empty columns, so a repeat
  or a race changes nothing. Named by the payment's id, or by its provider's id of it (the
  paid row).
*/
create function public.fill_payment_details(
  p_fields jsonb,
  p_payment_id uuid default null,
  p_provider text default null,
  p_provider_payment_id text default null
) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  v_invoice_url text := nullif(p_fields ->> 'invoice_url', '');
  v_charge text := nullif(p_fields ->> 'provider_charge_id', '');
  v_count integer;
begin
  update public.payment_history set
    invoice_url = coalesce(invoice_url, v_invoice_url),
    provider_charge_id = coalesce(provider_charge_id, v_charge)
  where (id = p_payment_id or (provider = p_provider and provider_payment_id = p_provider_payment_id
                               and status in ('paid', 'succeeded')))
    and ((invoice_url is null and v_invoice_url is not null)
      or (provider_charge_id is null and v_charge is not null));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

-- What the signed-in pages show of the user besides the session: profile and subscription.
create function public.account_summary()
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select jsonb_build_object(
    'profile', (
      select jsonb_build_object(
        'display_name', p.display_name,
        'avatar_path', p.avatar_path,
        'notify_product_updates', p.notify_product_updates,
        'notify_billing', p.notify_billing,
        'notify_security', p.notify_security)
      from public.user_profiles p where p.user_id = (select auth.uid())
    ),
    'subscription', (
      select to_jsonb(s) from public.user_subscriptions s where s.user_id = (select auth.uid())
    )
  )
$$;

/*
  The billing page: the subscription row, one page of payments (newest first, with the
  provider references its deferred lookups need) and their total. A page past the end gives
  the last page, returned as "page". The planner cannot know the caller's history length, so
  sorting is off for this function: the page always comes in index order
  (tests/db/query-plans.test.ts).
*/
create function public.billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' set enable_sort = off as $$
  with me as (
    select auth.uid() as id
  ), counted as (
    select coalesce((
      select t.total from public.payment_totals t where t.user_id = (select id from me)
    ), 0) as total
  ), shown as (
    select greatest(1, least(
      coalesce(p_page, 1),
      ceil((select total from counted)::numeric / greatest(p_page_size, 1))::int
    )) as page
  )
  select jsonb_build_object(
    'subscription', (
      select to_jsonb(s) from public.user_subscriptions s where s.user_id = (select id from me)
    ),
    'payments', coalesce((
      select jsonb_agg(to_jsonb(p) order by p.created_at desc, p.id desc)
      from (
        select id, provider, amount, currency, status, description, invoice_url, created_at,
          amount_refunded, dispute_status,
          provider_payment_id, provider_charge_id
        from public.payment_history
        where user_id = (select id from me)
        order by created_at desc, id desc
        limit greatest(p_page_size, 1)
        offset ((select page from shown) - 1) * greatest(p_page_size, 1)
      ) p
    ), '[]'::jsonb),
    'total', (select total from counted),
    'page', (select page from shown)
  )
$$;

-- Falling past due: the payment being charged failed.
create function public.fail_pending_payments() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  update public.payment_history set status = 'failed'
  where user_id = new.user_id and provider = new.provider and status = 'pending';
  return null;
end
$$;
create trigger user_subscriptions_failed_payments after update of status
  on public.user_subscriptions for each row
  when (new.status = 'past_due' and old.status is distinct from 'past_due')
  execute function public.fail_pending_payments();
