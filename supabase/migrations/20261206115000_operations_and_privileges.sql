/*
  What operations read, then every privilege, stated for each API role.

  Hosted Supabase grants nothing on new tables in `public` to the API roles (older projects
  still carry default grants), and Postgres lets PUBLIC execute every new function. So this
  takes everything away, then grants exactly what each role needs:

    anon           nothing: no page or API reads a table before sign-in.
    authenticated  reads its own rows (RLS narrows every read to auth.uid()), updates the
                   editable columns of its own profile, reads its pages in one call.
    service_role   the server: the ledger functions, the catalogue sync, the mail outbox, rate
                   limits, and the repairs docs/operations.md describes. Row data only: no
                   TRUNCATE, REFERENCES or TRIGGER.

  Triggers and helpers are called by Postgres or by other functions, never by a role. Each
  provider's migration, after this one, states its own objects' privileges.
  tests/db/privileges.test.ts holds the same matrix and fails on anything not in it.
*/

/*
  The newest migration applied, as the Supabase CLI records them, so `/healthz` can tell a
  database behind or ahead of the code. Null for a database migrated some other way.
*/
create function public.schema_version() returns text
language plpgsql stable security definer set search_path = '' as $$
begin
  return (select max(version) from supabase_migrations.schema_migrations);
exception when undefined_table or invalid_schema_name then
  return null;
end
$$;

-- For /metrics, once per scrape: the outbox's depth and oldest age, and the reconciliation's
-- corrections per provider.
create function public.operations_metrics()
returns table (name text, provider text, value float8)
language sql stable security definer set search_path = '' as $$
  select 'notification_outbox_depth', null, count(*)::float8
  from public.notification_outbox where status = 'pending'
  union all
  select 'notification_outbox_oldest_age_seconds', null,
    coalesce(extract(epoch from now() - min(created_at))::float8, 0)
  from public.notification_outbox where status = 'pending'
  union all
  select 'reconcile_corrections', provider, count(*)::float8
  from public.webhook_events where event_id like 'reconcile:%' group by provider
$$;

revoke all on all tables in schema public from public, anon, authenticated, service_role;
revoke all on all functions in schema public from public, anon, authenticated, service_role;

grant select on table public.user_profiles, public.user_subscriptions, public.payment_history,
  public.payment_totals to authenticated;
grant update (display_name, avatar_path, notify_product_updates, notify_billing, notify_security)
  on table public.user_profiles to authenticated;
grant execute on function
  public.account_summary(),
  public.billing_overview(int, int),
  public.account_billing_overview(int, int),
  public.current_plan_change(),
  public.email_change_waiting_for()
to authenticated;

grant select, insert, update, delete on table
  public.user_profiles,
  public.user_subscriptions,
  public.payment_history,
  public.payment_totals,
  public.webhook_events,
  public.notification_outbox,
  public.contact_messages,
  public.rate_limits
to service_role;
grant execute on function
  public.session_is_active(uuid, uuid),
  public.email_link_state(text),
  public.sign_up_confirmed(text, text),
  public.sign_up_unproven(text, text, text),
  public.record_webhook_event(text, text, text, timestamptz),
  public.apply_subscription_event(text, text, text, timestamptz, uuid, jsonb),
  public.note_payment_failure(uuid, timestamptz, timestamptz),
  public.record_payment_event(text, text, text, timestamptz, jsonb),
  public.record_payment_failure(text, text, text, timestamptz, uuid, jsonb, jsonb),
  public.fill_payment_details(jsonb, uuid, text, text),
  public.enqueue_notification(uuid, text, jsonb, text, text),
  public.enqueue_attempts_notice(text, text, jsonb),
  public.claim_notifications(integer, integer),
  public.finish_notification(uuid, integer, text, text, timestamptz),
  public.store_contact_message(jsonb, text),
  public.rate_limit_hit(text, integer, integer),
  public.rate_limit_hits(text[], integer[], integer[]),
  public.schema_version(),
  public.operations_metrics()
to service_role;
