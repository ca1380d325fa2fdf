-- Table and function privileges, stated explicitly for each API role.
--
-- Hosted Supabase no longer grants anything on new tables in `public` to anon,
-- authenticated and service_role (the Data API exposes only what a migration grants), and
-- Postgres lets PUBLIC execute every new function. Projects created earlier still carry the
-- old default grants. So this migration first takes everything away, then grants exactly
-- what each role needs; it ends in the same state on an old and on a new project.
--
--   anon           nothing: no page or API reads a table before sign-in.
--   authenticated  reads its own rows (RLS narrows every read to auth.uid()), updates the
--                  editable columns of its own profile, reads its billing page in one call.
--   service_role   the server: webhooks (through the ledger functions), the Stripe
--                  catalogue sync, invoice URLs, notification preferences, rate limits, and
--                  the repairs docs/operations.md describes. Row data only: no TRUNCATE,
--                  REFERENCES or TRIGGER.
--
-- tests/db/privileges.test.ts holds the same matrix and fails on any table, column or
-- function that is not in it.

revoke all on table
  public.user_profiles,
  public.user_subscriptions,
  public.payment_history,
  public.stripe_products,
  public.webhook_events,
  public.rate_limits
from public, anon, authenticated, service_role;

grant select on table public.user_profiles, public.user_subscriptions, public.payment_history
  to authenticated;
grant update (display_name, avatar_path, notify_product_updates, notify_billing, notify_security)
  on table public.user_profiles to authenticated;

grant select, insert, update, delete on table
  public.user_profiles,
  public.user_subscriptions,
  public.payment_history,
  public.stripe_products,
  public.webhook_events,
  public.rate_limits
to service_role;

-- Functions: triggers and helpers are called by Postgres or by other functions, never by a
-- role; the ledger and the rate limiter by the server; the billing page by its user.
revoke all on function
  public.set_updated_at(),
  public.handle_new_user(),
  public.subscription_status_rank(text),
  public.record_webhook_event(text, text, text, timestamptz),
  public.apply_subscription_event(text, text, text, timestamptz, uuid, jsonb),
  public.record_payment_event(text, text, text, timestamptz, jsonb),
  public.rate_limit_hit(text, integer, integer),
  public.billing_overview(int, int)
from public, anon, authenticated, service_role;

grant execute on function
  public.record_webhook_event(text, text, text, timestamptz),
  public.apply_subscription_event(text, text, text, timestamptz, uuid, jsonb),
  public.record_payment_event(text, text, text, timestamptz, jsonb),
  public.rate_limit_hit(text, integer, integer)
to service_role;
grant execute on function public.billing_overview(int, int) to authenticated;
