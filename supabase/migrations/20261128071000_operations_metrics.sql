-- What the metrics endpoint (/metrics, app/lib/server/metrics.server.ts) reads from the
-- database, in one call per scrape and never per request: the notification outbox's depth
-- and the age of its oldest waiting row, and how many corrections the reconciliation has
-- written per provider (its ledger rows: subscriptions and payments, ids `reconcile:…`).
-- One row per sample: the gauge's name, its provider label (or null) and its value.
--
-- Two indexes keep the reads it and `billing:reconcile` make independent of the ledger's
-- size: the newest event per provider (where a changed-only reconciliation starts) and the
-- reconciliation's own rows.

create index webhook_events_received_idx on public.webhook_events (provider, received_at desc);
create index webhook_events_reconcile_idx on public.webhook_events (provider)
  where event_id like 'reconcile:%';

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

revoke all on function public.operations_metrics() from public, anon, authenticated;
grant execute on function public.operations_metrics() to service_role;
