-- The durable webhook outbox every API that sends webhooks writes to, in the same transaction as the
-- change it reports. A dispatcher (any number of instances) claims due rows with SKIP LOCKED, signs
-- them through the owning API's adapter, POSTs, and records the outcome here and on the subscription.

create table public.webhook_outbox (
  id bigint generated always as identity primary key,
  api text not null,
  subscription_id text not null,
  event text not null,
  url text not null,
  headers jsonb not null default '{}'::jsonb,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts integer not null default 0,
  max_attempts integer not null default 8,
  next_attempt_at timestamptz not null default now(),
  claimed_until timestamptz,
  last_status integer,
  last_error text,
  created_at timestamptz not null default now(),
  delivered_at timestamptz
);
alter table public.webhook_outbox enable row level security;
create index webhook_outbox_due on public.webhook_outbox (next_attempt_at, id) where status = 'pending';
create index webhook_outbox_subscription on public.webhook_outbox (api, subscription_id, id desc);

create policy "administrators read the outbox" on public.webhook_outbox
  for select to authenticated using (public.is_admin());
-- headers may hold a subscription's secret headers: administrators see the delivery log without them
grant select (id, api, subscription_id, event, url, status, attempts, max_attempts, next_attempt_at,
  last_status, last_error, created_at, delivered_at) on public.webhook_outbox to authenticated;
grant all on public.webhook_outbox to service_role;

create or replace function public.webhook_outbox_notify() returns trigger
language plpgsql as $$
begin
  perform pg_notify('webhook_outbox', new.id::text);
  return new;
end
$$;
create trigger webhook_outbox_notify after insert on public.webhook_outbox
  for each row execute function public.webhook_outbox_notify();
