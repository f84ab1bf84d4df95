-- The held-time version: what lets the scheduling function keep the slot data it read (the hosts' held
-- time, a type's bookings in its limit periods, its seat groups: store/holds.ts slotData) in memory and
-- still never answer slots from data a booking has made stale, on any instance. It is one more scope of
-- answer_versions (migrations/20261126001550_answer_versions.sql), bumped in the transaction of every
-- change to the rows slotData reads, so the admission that reads every scope's version in its one round
-- trip sees the change exactly when it becomes visible.
--
-- Scope: `scheduling:held`.

insert into public.answer_versions (scope) values ('scheduling:held') on conflict do nothing;

-- Holds: any change moves someone's held time. Statement-level, so a statement that changed no row (a
-- sweep that found nothing) bumps nothing.
create or replace function public.scheduling_holds_answer_versions() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if not exists (select 1 from changed) then
    return null;
  end if;
  perform public.bump_answer_versions(array['scheduling:held']);
  return null;
end
$$;

-- Bookings: a new or removed row, or a change of what slotData reads of one (its type, status, times,
-- seat group). A meeting's start and end, a payment's state or a reminder leave the slots as they were.
create or replace function public.scheduling_bookings_answer_versions() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if tg_op = 'UPDATE' then
    if not exists (
      select 1 from changed_new n join changed_old o using (id)
      where (n.event_type_slug, n.status, n.start_at, n.end_at, n.seat_of)
            is distinct from (o.event_type_slug, o.status, o.start_at, o.end_at, o.seat_of)
    ) then
      return null;
    end if;
  elsif not exists (select 1 from changed) then
    return null;
  end if;
  perform public.bump_answer_versions(array['scheduling:held']);
  return null;
end
$$;

create trigger scheduling_holds_versions_insert after insert on public.scheduling_holds
  referencing new table as changed for each statement execute function public.scheduling_holds_answer_versions();
create trigger scheduling_holds_versions_update after update on public.scheduling_holds
  referencing new table as changed for each statement execute function public.scheduling_holds_answer_versions();
create trigger scheduling_holds_versions_delete after delete on public.scheduling_holds
  referencing old table as changed for each statement execute function public.scheduling_holds_answer_versions();

create trigger scheduling_bookings_versions_insert after insert on public.scheduling_bookings
  referencing new table as changed for each statement execute function public.scheduling_bookings_answer_versions();
create trigger scheduling_bookings_versions_update after update on public.scheduling_bookings
  referencing old table as changed_old new table as changed_new
  for each statement execute function public.scheduling_bookings_answer_versions();
create trigger scheduling_bookings_versions_delete after delete on public.scheduling_bookings
  referencing old table as changed for each statement execute function public.scheduling_bookings_answer_versions();

-- the trigger functions act as their owner; nobody calls them directly
revoke execute on function public.scheduling_holds_answer_versions() from public, anon, authenticated;
revoke execute on function public.scheduling_bookings_answer_versions() from public, anon, authenticated;
