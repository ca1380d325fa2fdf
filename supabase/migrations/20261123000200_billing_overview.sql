/*
  The billing page's data in one call: the signed-in user's subscription row, one page of
  their payments (newest first) and how many there are. It runs as the caller (security
  invoker), so row-level security decides what it reads, exactly as the separate table
  reads did; it names the caller's own rows with auth.uid() besides. A page past the end
  (an old link, a hand-edited URL) gives the last page; the page actually shown is
  returned as "page".
*/
create or replace function public.billing_overview(p_page int default 1, p_page_size int default 10)
returns jsonb
language sql stable security invoker set search_path = '' as $$
  with me as (
    select auth.uid() as id
  ), counted as (
    select count(*)::int as total
    from public.payment_history
    where user_id = (select id from me)
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
        select id, provider, amount, currency, status, description, invoice_url, created_at
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

revoke execute on function public.billing_overview(int, int) from public, anon;
grant execute on function public.billing_overview(int, int) to authenticated;
