/*
  When a past-due subscription's payment failed, and when the provider tries it again, so
  every page says "Payment failed on … we will retry on …" (docs/subscriber-journeys.md).

  - `payment_failed_at`: set when the subscription falls past due (the event's time), unless a
    failure of this period is already known; cleared when it leaves past due.
  - `payment_retry_at`: Stripe's `next_payment_attempt` of the failed invoice, written by
    `note_payment_failure` from `invoice.payment_failed` (null: no retry planned, or Polar,
    which does not say when it retries).
  - `note_payment_failure` keeps the newest failure: webhooks are not ordered, so an older
    attempt's event delivered late changes nothing.

  Grants as tests/db/privileges.test.ts expects.
*/
alter table public.user_subscriptions
  add column payment_failed_at timestamptz,
  add column payment_retry_at timestamptz;

create function public.note_payment_failure(
  p_user_id uuid, p_failed_at timestamptz, p_retry_at timestamptz
) returns void
language sql security definer set search_path = '' as $$
  update public.user_subscriptions
     set payment_failed_at = p_failed_at, payment_retry_at = p_retry_at
   where user_id = p_user_id
     and (payment_failed_at is null or payment_failed_at <= p_failed_at);
$$;

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

revoke all on function
  public.note_payment_failure(uuid, timestamptz, timestamptz),
  public.track_payment_failure()
from public, anon, authenticated, service_role;

grant execute on function public.note_payment_failure(uuid, timestamptz, timestamptz) to service_role;
