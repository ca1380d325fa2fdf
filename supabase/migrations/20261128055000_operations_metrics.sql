-- What the metrics endpoint (/metrics, app/lib/server/metrics.server.ts) reads from the
-- database, in one call per scrape and never per request: the notification outbox's depth
-- and the age of its oldest waiting row, and how many corrections the reconciliation has
-- written per provider (its ledger rows: subscriptions and payments, ids `reconcile:…`).
--
-- Two indexes keep the reads it and `billing:reconcile` make independent of the ledger's
-- size: the newest event per provider (where a changed-only reconciliation starts) and the
-- reconciliation's own rows.

create index webhook_events_received_idx on public.webhook_events (provider, received_at desc);
create index webhook_events_reconcile_idx on public.webhook_events (provider)
  where event_id like 'reconcile:%';

create or replace function public.operations_metrics() returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object(
    'outbox_depth', (select count(*) from public.notification_outbox where status = 'pending'),
    'outbox_oldest_age_seconds', coalesce((
      select extract(epoch from now() - min(created_at))::float8
      from public.notification_outbox where status = 'pending'), 0),
    'reconcile_corrections', coalesce((
      select jsonb_object_agg(provider, n) from (
        select provider, count(*) as n from public.webhook_events
        where event_id like 'reconcile:%' group by provider) counts), '{}'::jsonb))
$$;

revoke all on function public.operations_metrics() from public, anon, authenticated;
grant execute on function public.operations_metrics() to service_role;
