-- Scheduling: bookings and the time they hold, webhook subscriptions, payment fulfilment (which is also
-- a paid credit until a booking spends it) and people's tiers. Hosts, their schedules and away periods
-- are declared in the site's configuration (sessions.hosts) and event types are the site's session
-- records, so neither needs a table here.

-- btree_gist lets one GiST index compare a host (equality) and a time range (overlap): the exclusion
-- constraint below is what makes a double booking impossible, whatever the application does.
create extension if not exists btree_gist;

create table public.scheduling_bookings (
  id bigint generated always as identity primary key,
  uid text not null unique,
  event_type_slug text not null,
  event_type_id integer not null,
  title text not null,
  description text not null default '',
  start_at timestamptz not null,
  end_at timestamptz not null,
  -- the type's buffers when the booking was made: the held range is [start - before, end + after)
  before_buffer integer not null default 0 check (before_buffer >= 0),
  after_buffer integer not null default 0 check (after_buffer >= 0),
  status text not null check (status in ('accepted', 'pending', 'cancelled', 'rejected', 'rescheduled')),
  -- the hosts' addresses (a collective booking has several; round robin one)
  host_emails text[] not null,
  attendee_name text not null,
  attendee_email text not null,
  attendee_time_zone text not null,
  attendee_language text not null default 'en',
  attendee_phone text,
  guests text[] not null default '{}',
  location text,
  meeting_url text,
  metadata jsonb not null default '{}'::jsonb,
  responses jsonb not null default '{}'::jsonb,
  cancellation_reason text,
  rescheduling_reason text,
  rescheduled_from_uid text,
  rescheduled_by text,
  recurring_uid text,
  -- seated types: the uid of the slot's first seat (whose row owns the held time); null otherwise
  seat_of text,
  payment_session_id text,
  booked_by uuid references auth.users (id) on delete set null,
  ics_uid text not null,
  ics_sequence integer not null default 0,
  meeting_started_at timestamptz,
  meeting_ended_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (end_at > start_at)
);
alter table public.scheduling_bookings enable row level security;
create index scheduling_bookings_start on public.scheduling_bookings (start_at, id);
create index scheduling_bookings_attendee on public.scheduling_bookings (lower(attendee_email), start_at);
create index scheduling_bookings_type_start on public.scheduling_bookings (event_type_slug, start_at)
  where status in ('accepted', 'pending');
create index scheduling_bookings_hosts on public.scheduling_bookings using gin (host_emails);
create index scheduling_bookings_recurring on public.scheduling_bookings (recurring_uid) where recurring_uid is not null;
create index scheduling_bookings_seat_group on public.scheduling_bookings (seat_of) where seat_of is not null;
-- the successful booking of a payment session: one active booking per session
create unique index scheduling_bookings_payment on public.scheduling_bookings (payment_session_id)
  where payment_session_id is not null and status in ('accepted', 'pending');

-- The time a booking (or a seated slot's group) holds on each of its hosts, buffers included. Rows
-- exist while the booking is accepted or pending; cancel, decline and moves delete or replace them.
create table public.scheduling_holds (
  booking_id bigint not null references public.scheduling_bookings (id) on delete cascade,
  host_email text not null,
  during tstzrange not null,
  primary key (booking_id, host_email),
  constraint scheduling_holds_no_overlap exclude using gist (host_email with =, during with &&)
);
alter table public.scheduling_holds enable row level security;

create table public.scheduling_webhooks (
  id bigint generated always as identity primary key,
  uid uuid not null default gen_random_uuid() unique,
  subscriber_url text not null,
  triggers text[] not null,
  active boolean not null default true,
  secret text,
  payload_template text,
  event_type_slug text,
  source text not null default 'hand' check (source in ('hand', 'file')),
  created_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_at timestamptz,
  last_error text
);
alter table public.scheduling_webhooks enable row level security;
create index scheduling_webhooks_active on public.scheduling_webhooks using gin (triggers) where active;

-- Payment fulfilment, keyed by the provider's checkout session id. The claim (the insert) is taken once,
-- so webhook retries and the success page are idempotent. A paid row whose booking_id is null (the time
-- was gone, or the booking was declined) is a credit a later booking of that type may spend.
create table public.scheduling_payments (
  session_id text primary key,
  status text not null check (status in ('processing', 'booked', 'unavailable', 'failed')),
  event_type_slug text not null,
  attendee_email text not null,
  start_at timestamptz,
  amount numeric,
  currency text,
  booking_id bigint references public.scheduling_bookings (id) on delete set null,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.scheduling_payments enable row level security;
create index scheduling_payments_credit on public.scheduling_payments (lower(attendee_email), event_type_slug)
  where booking_id is null and status in ('booked', 'unavailable');

-- A person's plan: the tier their membership gives (staff comes from the profile's role).
create table public.person_tiers (
  person_id uuid primary key references auth.users (id) on delete cascade,
  tier text not null check (tier in ('member', 'supporter')),
  updated_at timestamptz not null default now()
);
alter table public.person_tiers enable row level security;

-- security definer: policies ask for the reader's address without recursing into profiles' policies
create or replace function public.current_person_email() returns text
language sql stable security definer set search_path = public as $$
  select lower(email) from public.profiles where id = auth.uid()
$$;
grant execute on function public.current_person_email() to anon, authenticated, service_role;

create policy "people read the bookings they attend or host" on public.scheduling_bookings
  for select to authenticated using (
    lower(attendee_email) = public.current_person_email()
    or public.current_person_email() = any (host_emails)
  );
create policy "administrators read every booking" on public.scheduling_bookings
  for select to authenticated using (public.is_admin());
create policy "administrators read the held time" on public.scheduling_holds
  for select to authenticated using (public.is_admin());
create policy "administrators read scheduling webhooks" on public.scheduling_webhooks
  for select to authenticated using (public.is_admin());
create policy "people read their own tier" on public.person_tiers
  for select to authenticated using (person_id = auth.uid());
create policy "administrators manage tiers" on public.person_tiers
  for all to authenticated using (public.is_admin()) with check (public.is_admin());
-- scheduling_payments: no policy, only the service role (which bypasses RLS) touches it

revoke all on public.scheduling_bookings, public.scheduling_holds, public.scheduling_webhooks,
  public.scheduling_payments, public.person_tiers from anon, authenticated;
grant select on public.scheduling_bookings, public.scheduling_holds to authenticated;
-- the secret stays with the service role
grant select (id, uid, subscriber_url, triggers, active, payload_template, event_type_slug, source, created_by,
  created_at, updated_at, last_at, last_error) on public.scheduling_webhooks to authenticated;
grant select, insert, update, delete on public.person_tiers to authenticated;
grant all on public.scheduling_bookings, public.scheduling_holds, public.scheduling_webhooks,
  public.scheduling_payments, public.person_tiers to service_role;
