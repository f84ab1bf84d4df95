-- The stream's numbers are given at commit, not at insert. network_next_seq took its lock when the
-- event was inserted and held it to the end of the transaction, so every joined member's write waited
-- for the one before it through its last statements, the round trips back to the server and the
-- commit: one write at a time across the site, whatever the number of connections. Now an event is
-- inserted with a provisional negative number, and a deferred trigger takes the lock and the real
-- number when the transaction commits, holding it only through the commit itself. The guarantee is
-- the same: numbers become visible in the order they were given (a reader that saw n never later
-- finds a smaller one appear), and the notification names the real number.
create sequence public.network_seq_provisional as bigint;
grant usage on sequence public.network_seq_provisional to service_role;
alter table public.network_seq alter column seq set default -nextval('public.network_seq_provisional');

create function public.network_seq_number_at_commit() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  numbered bigint;
begin
  perform pg_advisory_xact_lock(hashtext('network_seq'));
  numbered := nextval('public.network_seq_numbers');
  update public.network_seq set seq = numbered where seq = new.seq;
  perform pg_notify('network_seq', numbered::text);
  return null;
end $$;
revoke all on function public.network_seq_number_at_commit() from public, anon, authenticated;

-- deferred triggers fire at commit in the order their rows were inserted, so a transaction's own events
-- keep their order too
create constraint trigger network_seq_number_at_commit
  after insert on public.network_seq
  deferrable initially deferred
  for each row when (new.seq < 0)
  execute function public.network_seq_number_at_commit();

-- nothing takes a number at insert any more, and a caller that did would hold the stream's lock again
drop function public.network_next_seq();
