-- Meeting rooms (the booking's meetingUrl, {base_url}/book/video/<uid>): who came in and when. The first
-- join starts the meeting (scheduling_bookings.meeting_started_at, MEETING_STARTED); a host ending it or
-- the sweep after the room closes ends it (meeting_ended_at, MEETING_ENDED). last_seen_at is the
-- participant's latest heartbeat, so the room can tell who is in it now.

create table public.scheduling_meeting_joins (
  booking_id bigint not null references public.scheduling_bookings (id) on delete cascade,
  -- the participant's address as the booking knows it (lower case)
  email text not null check (email = lower(email)),
  name text not null,
  role text not null check (role in ('host', 'attendee', 'guest', 'administrator')),
  first_joined_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  left_at timestamptz,
  primary key (booking_id, email)
);
alter table public.scheduling_meeting_joins enable row level security;
create index scheduling_meeting_joins_seen on public.scheduling_meeting_joins (booking_id, last_seen_at);

-- the sweep's work list: meetings started and not ended, by when they end
create index scheduling_bookings_open_meetings on public.scheduling_bookings (end_at)
  where meeting_started_at is not null and meeting_ended_at is null;

create policy "people read who joined the meetings they attend or host" on public.scheduling_meeting_joins
  for select to authenticated using (
    exists (select 1 from public.scheduling_bookings b
             where b.id = booking_id
               and (lower(b.attendee_email) = public.current_person_email()
                    or public.current_person_email() = any (b.host_emails)))
  );
create policy "administrators read every meeting's joins" on public.scheduling_meeting_joins
  for select to authenticated using (public.is_admin());

revoke all on public.scheduling_meeting_joins from anon, authenticated;
grant select on public.scheduling_meeting_joins to authenticated;
grant all on public.scheduling_meeting_joins to service_role;
