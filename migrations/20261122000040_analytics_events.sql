-- Analytics: the events the site's PostHog-compatible capture routes (/api/events/...) accept. The
-- function writes them as the service role; staff read them; administrators may delete them (a visitor's
-- request to be forgotten). Nobody else reads or writes a row: visitors' ids and properties are private.

create table public.analytics_events (
  id bigint generated always as identity primary key,
  -- the event's own uuid (sent by the SDKs, else made on arrival): a retried request is stored once
  uuid uuid not null unique,
  event text not null check (char_length(event) between 1 and 200),
  distinct_id text not null check (char_length(distinct_id) between 1 and 200),
  properties jsonb not null default '{}'::jsonb check (jsonb_typeof(properties) = 'object'),
  -- when it happened, corrected for the sender's clock (sent_at) as PostHog does
  "timestamp" timestamptz not null,
  sent_at timestamptz,
  received_at timestamptz not null default now(),
  ip text
);
alter table public.analytics_events enable row level security;

-- reading back: newest first, by event name, by person
create index analytics_events_timestamp on public.analytics_events ("timestamp" desc, id desc);
create index analytics_events_event on public.analytics_events (event, "timestamp" desc);
create index analytics_events_distinct_id on public.analytics_events (distinct_id, "timestamp" desc);

create policy "staff read analytics events" on public.analytics_events
  for select to authenticated using (public.is_staff());
create policy "administrators delete analytics events" on public.analytics_events
  for delete to authenticated using (public.is_admin());

-- exact privileges (Supabase's default privileges would grant everything to anon and authenticated)
revoke all on public.analytics_events from anon, authenticated;
grant select, delete on public.analytics_events to authenticated;
grant all on public.analytics_events to service_role;
