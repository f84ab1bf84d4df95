-- Chat access: a made booking (accepted at once, or confirmed by its host) lets its attendee talk with
-- its hosts on the site's support desk. The desk (the support-api function) is not built yet, so the
-- grant is recorded here for it to honour: while revoked_at is null, the attendee may open a conversation
-- that is routed to host_emails. Cancelling or declining the booking revokes it; a move that changes the
-- hosts updates them.

create table public.scheduling_chat_grants (
  booking_id bigint primary key references public.scheduling_bookings (id) on delete cascade,
  attendee_email text not null check (attendee_email = lower(attendee_email)),
  host_emails text[] not null check (cardinality(host_emails) > 0),
  granted_at timestamptz not null default now(),
  revoked_at timestamptz
);
alter table public.scheduling_chat_grants enable row level security;
-- the desk asks "may this address talk to the desk about a booking, and with whom"
create index scheduling_chat_grants_attendee on public.scheduling_chat_grants (attendee_email)
  where revoked_at is null;

create policy "people read the chat access of bookings they attend or host" on public.scheduling_chat_grants
  for select to authenticated using (
    attendee_email = public.current_person_email() or public.current_person_email() = any (host_emails)
  );
create policy "administrators read every chat access" on public.scheduling_chat_grants
  for select to authenticated using (public.is_admin());

revoke all on public.scheduling_chat_grants from anon, authenticated;
grant select on public.scheduling_chat_grants to authenticated;
grant all on public.scheduling_chat_grants to service_role;
