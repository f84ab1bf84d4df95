-- How many live bookings (accepted or pending) end in each month, kept by triggers. The bookings list
-- carries its exact total (Cal.com's pagination.totalItems); for the upcoming and past lists without
-- other filters, that total is the kept months on the far side of the current one plus the live bookings
-- of the current month counted on the live-bookings index (20261126003300): its cost is bounded by one
-- month's bookings however many the table holds, where counting every upcoming booking grew with them.
-- Months are UTC months. Each month's count is split over 8 rows chosen by the booking's uid, so that
-- bookings made together do not all wait on one counter row until their transactions commit.
create table public.scheduling_live_booking_months (
  month timestamptz not null,
  shard smallint not null,
  bookings bigint not null,
  primary key (month, shard)
);
alter table public.scheduling_live_booking_months enable row level security;
-- no policies: only the service role reads them (the bookings API); the triggers write as their owner
revoke all on public.scheduling_live_booking_months from anon, authenticated;
grant all on public.scheduling_live_booking_months to service_role;

-- The UTC month a booking's end falls in.
create or replace function public.scheduling_booking_month(end_at timestamptz) returns timestamptz
language sql immutable parallel safe as $$ select date_trunc('month', end_at, 'UTC') $$;

create or replace function public.scheduling_live_booking_months_apply(changes jsonb) returns void
language sql volatile security definer set search_path = '' as $$
  insert into public.scheduling_live_booking_months as m (month, shard, bookings)
  select d.month, d.shard, sum(d.delta)
  from jsonb_to_recordset(changes) as d(month timestamptz, shard smallint, delta bigint)
  group by 1, 2
  having sum(d.delta) <> 0
  order by 1, 2 -- one order for every writer: two statements never lock each other's rows crosswise
  on conflict (month, shard) do update set bookings = m.bookings + excluded.bookings
$$;
revoke execute on function public.scheduling_live_booking_months_apply(jsonb) from public, anon, authenticated;

-- Inserted live bookings count up, deleted ones down: one function for both statements, whose rows come
-- as the transition table `changed`.
create or replace function public.scheduling_live_booking_months_after_statement() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform public.scheduling_live_booking_months_apply((
    select jsonb_agg(jsonb_build_object('month', month, 'shard', shard,
                                        'delta', case when tg_op = 'DELETE' then -n else n end))
    from (select public.scheduling_booking_month(end_at) as month, (hashtext(uid) & 7)::smallint as shard,
                 count(*) as n
          from changed where status in ('accepted', 'pending') group by 1, 2) g));
  return null;
end
$$;

-- A booking cancelled, confirmed, rejected or moved to another time leaves one month (or liveness) for
-- another; a row trigger with a condition, so that other changes cost nothing here.
create or replace function public.scheduling_live_booking_months_after_change() returns trigger
language plpgsql security definer set search_path = '' as $$
begin
  perform public.scheduling_live_booking_months_apply(
    (case when old.status in ('accepted', 'pending') then jsonb_build_array(jsonb_build_object(
       'month', public.scheduling_booking_month(old.end_at), 'shard', hashtext(old.uid) & 7, 'delta', -1))
     else '[]'::jsonb end) ||
    (case when new.status in ('accepted', 'pending') then jsonb_build_array(jsonb_build_object(
       'month', public.scheduling_booking_month(new.end_at), 'shard', hashtext(new.uid) & 7, 'delta', 1))
     else '[]'::jsonb end));
  return null;
end
$$;

create trigger scheduling_live_booking_months_insert after insert on public.scheduling_bookings
  referencing new table as changed for each statement
  execute function public.scheduling_live_booking_months_after_statement();
create trigger scheduling_live_booking_months_delete after delete on public.scheduling_bookings
  referencing old table as changed for each statement
  execute function public.scheduling_live_booking_months_after_statement();
create trigger scheduling_live_booking_months_change after update of status, end_at, uid on public.scheduling_bookings
  for each row when ((old.status in ('accepted', 'pending')) <> (new.status in ('accepted', 'pending'))
                     or old.end_at is distinct from new.end_at or old.uid is distinct from new.uid)
  execute function public.scheduling_live_booking_months_after_change();

-- the bookings stored before the counts existed
insert into public.scheduling_live_booking_months (month, shard, bookings)
select public.scheduling_booking_month(end_at), (hashtext(uid) & 7)::smallint, count(*)
from public.scheduling_bookings where status in ('accepted', 'pending') group by 1, 2;
