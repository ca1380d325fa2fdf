/*
  The billing page in one statement besides the session check (docs/performance.md,
  "Database work per request"): the dashboard layout needs the account summary and the page
  its billing overview, and the two reads were two statements. `account_billing_overview`
  gives both, as `account_summary() || billing_overview(...)` (their subscription is the same
  row), so the two cannot drift apart. Security invoker like them: row-level security decides
  what it reads.

  Grants as tests/db/privileges.test.ts expects.
*/
create function public.account_billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' as $$
  select public.account_summary() || public.billing_overview(p_page, p_page_size)
$$;

revoke execute on function public.account_billing_overview(int, int) from public, anon;
grant execute on function public.account_billing_overview(int, int) to authenticated;
