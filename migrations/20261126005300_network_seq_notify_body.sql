-- The stream's notification names the event it numbered: `<seq> <kind> <sha-256 of the body, hex>`, where
-- it named the number alone. The instance whose write appended the event holds its body already and
-- frames it from there (functions/network/federation/firehose.ts) instead of reading it back from the
-- table, once per commit on every write; every other instance reads the table as before. The hash is taken
-- before the stream's lock, which is still held through the commit alone.
create or replace function public.network_seq_number_at_commit() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  numbered bigint;
  named text := new.kind || ' ' || encode(sha256(new.body), 'hex');
begin
  perform pg_advisory_xact_lock(hashtext('network_seq'));
  numbered := nextval('public.network_seq_numbers');
  update public.network_seq set seq = numbered where seq = new.seq;
  perform pg_notify('network_seq', numbered::text || ' ' || named);
  return null;
end $$;
revoke all on function public.network_seq_number_at_commit() from public, anon, authenticated;
