/*
  The billing page's next payment after a plan change this period: the change's notice keeps
  the old plan, the period's start and the time of the change (read as the resume notice reads
  them), which the app prorates as the mails do (upcomingInvoice in
  app/notifications/render.ts), in the page's one read. Security definer to read the outbox,
  the caller's own row only.
*/
create function public.current_plan_change()
returns jsonb
language sql stable security definer set search_path = '' as $$
  select jsonb_build_object('old_plan', o.data -> 'old_plan',
    'period_start', o.data -> 'period_start', 'changed_at', o.data -> 'changed_at')
  from public.user_subscriptions s
  join public.notification_outbox o on o.user_id = s.user_id and o.kind = 'plan_changed'
    and (o.data ->> 'changed_at')::timestamptz >= s.current_period_start
  where s.user_id = (select auth.uid())
  order by o.created_at desc
  limit 1
$$;

revoke execute on function public.current_plan_change() from public, anon;
grant execute on function public.current_plan_change() to authenticated;

create or replace function public.account_billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select public.account_summary() || public.billing_overview(p_page, p_page_size)
    || jsonb_build_object('plan_change', public.current_plan_change())
$$;
