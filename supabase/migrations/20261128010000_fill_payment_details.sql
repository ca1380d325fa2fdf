/*
  One writer of billing rows: a payment recorded before the provider could give its invoice
  link or payment reference (docs/webhooks.md, "Lookups that can wait") is completed by this
  ledger function, never by an update from the app. It fills only columns that are still
  empty, so a repeat, or a fill racing another, changes nothing. The payment is named by its
  id (the billing page's deferred lookups) or by its paid order (an order's invoice becoming
  ready, `order.updated`).

  Grants as tests/db/privileges.test.ts expects.
*/
create function public.fill_payment_details(
  p_fields jsonb,
  p_payment_id uuid default null,
  p_polar_order_id text default null
) returns integer
language plpgsql security definer set search_path = '' as $$
declare
  v_invoice_url text := nullif(p_fields ->> 'invoice_url', '');
  v_payment_intent text := nullif(p_fields ->> 'stripe_payment_intent_id', '');
  v_count integer;
begin
  update public.payment_history set
    invoice_url = coalesce(invoice_url, v_invoice_url),
    stripe_payment_intent_id = coalesce(stripe_payment_intent_id, v_payment_intent)
  where (id = p_payment_id or (polar_order_id = p_polar_order_id and status = 'succeeded'))
    and ((invoice_url is null and v_invoice_url is not null)
      or (stripe_payment_intent_id is null and v_payment_intent is not null));
  get diagnostics v_count = row_count;
  return v_count;
end
$$;

revoke all on function public.fill_payment_details(jsonb, uuid, text)
  from public, anon, authenticated, service_role;
grant execute on function public.fill_payment_details(jsonb, uuid, text) to service_role;
