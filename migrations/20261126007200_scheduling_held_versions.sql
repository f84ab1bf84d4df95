-- The held-time version: what lets the scheduling function keep the slot data it read (the hosts' held
-- time, a type's bookings in its limit periods, its seat groups: store/holds.ts slotData) in memory and
-- still never answer slots from data a booking has made stale, on any instance. It is one more scope of
-- answer_versions (migrations/20261126001550_answer_versions.sql), bumped in the transaction of every
-- change to the rows slotData reads, so the admission that reads every scope's version in its one round
-- trip sees the change exactly when it becomes visible.
--
-- Scope: `scheduling:held`.

insert into public.answer_versions (scope) values ('scheduling:held') on conflict do nothing;

-- The bump runs when the changing transaction commits (deferred constraint triggers), once however many
-- rows it changed: a booking's transaction takes its advisory locks, its row locks and a seat group's locks
-- as it goes, and a version row locked at its first write would be one more lock taken in the middle of
-- those, in whatever order each path writes (a reschedule frees its holds before it locks the seat group
-- it joins; a creation locks the group before it writes). Taken last, at commit, it waits for nothing
-- after it, so it can close no cycle; and the lock is held for the commit alone, not the whole booking.
-- One consequence for later migrations: a transaction that changed rows of these tables cannot alter them
-- until those events have fired (`set constraints all immediate` fires them).
create or replace function public.bump_scheduling_held_once() returns void
language plpgsql security definer set search_path = public as $$
begin
  -- once a transaction: the setting is local to it (and gone with it)
  if current_setting('sitewire.held_version_bumped', true) is distinct from 'on' then
    perform set_config('sitewire.held_version_bumped', 'on', true);
    perform public.bump_answer_versions(array['scheduling:held']);
  end if;
end
$$;

-- Holds: any change moves someone's held time.
create or replace function public.scheduling_holds_held_version() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  perform public.bump_scheduling_held_once();
  return null;
end
$$;

-- Bookings: a new or removed row, or a change of what the slot data reads of one (its type, status,
-- times, seat group). A meeting's start and end, a payment's state, a reminder leave the slots as they were.
create or replace function public.scheduling_bookings_held_version() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if tg_op = 'UPDATE' then
    if (new.event_type_slug, new.status, new.start_at, new.end_at, new.seat_of)
       is not distinct from (old.event_type_slug, old.status, old.start_at, old.end_at, old.seat_of) then
      return null;
    end if;
  end if;
  perform public.bump_scheduling_held_once();
  return null;
end
$$;

create constraint trigger scheduling_holds_held_version
  after insert or update or delete on public.scheduling_holds
  deferrable initially deferred for each row execute function public.scheduling_holds_held_version();
create constraint trigger scheduling_bookings_held_version
  after insert or update or delete on public.scheduling_bookings
  deferrable initially deferred for each row execute function public.scheduling_bookings_held_version();

-- the trigger functions act as their owner; nobody calls them directly
revoke execute on function public.bump_scheduling_held_once() from public, anon, authenticated;
revoke execute on function public.scheduling_holds_held_version() from public, anon, authenticated;
revoke execute on function public.scheduling_bookings_held_version() from public, anon, authenticated;
